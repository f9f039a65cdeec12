/* cbsearch.c -- a small algebraic (pulse) codebook search in the manner of ACELP coders:
   backward filtering of the target, pulse placement on interleaved tracks, and the codebook
   gain.

   Cor_h_X: dn[i] = sum_{j=i}^{L_SUBFR-1} x[j] h[j-i] (the target correlated with the impulse
   response, i.e. H^T x), computed in 32 bits and then scaled so that the largest |dn| has two
   bits of headroom in 16 bits.  Cost: L_SUBFR (L_SUBFR + 1) / 2 multiply-accumulates.

   Search_pulses: 10 unit pulses (+-4096, i.e. +-1 in Q12) on 5 interleaved tracks of 8
   positions (track t holds the positions i = t mod 5); on each track the two positions with
   the largest |dn| get a pulse of dn's sign.  A simplification of a joint ACELP search: the
   choice maximises the correlation term only, not the normalised criterion.

   Filter_pulses: y = H code for the pulse vector, as a sum of shifted copies of h (one per
   pulse) instead of a full convolution: NB_PULSE * L_SUBFR / 2 additions on average.

   G_code: the codebook gain <xn2, y2> / <y2, y2> in Q14, clamped to [0, 2), computed on y2 / 2
   for headroom. */
#include "codec.h"

void Cor_h_X(const Word16 h[], const Word16 x[], Word16 dn[])
{
    Word16 i, j, sh;
    Word32 s, mag, max;
    Word32 y32[L_SUBFR];

    max = 0;
    for (i = 0; i < L_SUBFR; i++) {
        s = 0;
        for (j = i; j < L_SUBFR; j++)
            s = L_mac(s, x[j], h[j - i]);
        y32[i] = s;
        mag = L_abs(s);
        if (mag > max)
            max = mag;
    }

    /* max * 2^sh in [2^28, 2^29): dn keeps 2 bits of headroom (0 stays 0). */
    sh = sub(norm_l(max), 2);
    for (i = 0; i < L_SUBFR; i++)
        dn[i] = round_fx(L_shl(y32[i], sh));
}

void Search_pulses(const Word16 dn[], Word16 code[], Word16 pos[])
{
    Word16 i, t, p, k, best, mag, best_mag;

    for (i = 0; i < L_SUBFR; i++)
        code[i] = 0;
    k = 0;
    for (t = 0; t < NB_TRACK; t++) {
        for (p = 0; p < NB_PULSE / NB_TRACK; p++) {
            best = t;
            best_mag = -1;
            for (i = t; i < L_SUBFR; i += NB_TRACK) {
                if (code[i] != 0)
                    continue; /* already holds a pulse */
                mag = abs_s(dn[i]);
                if (mag > best_mag) {
                    best_mag = mag;
                    best = i;
                }
            }
            code[best] = dn[best] >= 0 ? 4096 : -4096;
            pos[k] = best;
            k++;
        }
    }
}

/* y[n] = sum over the pulses k of sign_k h[n - pos_k] (code[pos_k] = sign_k * 4096, i.e.
   the same as Convolve(code, h) up to where saturation happens). */
void Filter_pulses(const Word16 code[], const Word16 pos[], const Word16 h[], Word16 y[])
{
    Word16 i, k, p;
    for (i = 0; i < L_SUBFR; i++)
        y[i] = 0;
    for (k = 0; k < NB_PULSE; k++) {
        p = pos[k];
        if (code[p] > 0) {
            for (i = p; i < L_SUBFR; i++)
                y[i] = add(y[i], h[i - p]);
        } else {
            for (i = p; i < L_SUBFR; i++)
                y[i] = sub(y[i], h[i - p]);
        }
    }
}

Word16 G_code(const Word16 xn2[], const Word16 y2[])
{
    Word16 i, xy, yy, exp_xy, exp_yy, gain;
    Word16 y2s[L_SUBFR];
    Word32 s;

    for (i = 0; i < L_SUBFR; i++)
        y2s[i] = shr(y2[i], 1);

    s = 0;
    for (i = 0; i < L_SUBFR; i++)
        s = L_mac(s, xn2[i], y2s[i]);
    if (s <= 0)
        return 0;
    exp_xy = norm_l(s);
    xy = extract_h(L_shl(s, exp_xy));

    s = 1;
    for (i = 0; i < L_SUBFR; i++)
        s = L_mac(s, y2s[i], y2s[i]);
    exp_yy = norm_l(s);
    yy = extract_h(L_shl(s, exp_yy));

    /* On y2 / 2 the ratio is 2 g; div_s of xy / 2 by yy gives g 2^(exp_xy - exp_yy) in Q15. */
    xy = shr(xy, 1);
    gain = div_s(xy, yy);
    i = add(sub(exp_xy, exp_yy), 1);
    return shr(gain, i);
}
