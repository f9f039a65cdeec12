/* pitch.c -- pitch analysis: open-loop lag search on the weighted speech, closed-loop
   (integer) lag search on the filtered past excitation, long-term prediction, pitch gain,
   and the 1/sqrt(x) used to normalise correlations.

   Pitch_ol: the signal (with pit_max past samples) is scaled so that its energy neither
   saturates nor underflows; the lags are searched in three sections [4 pit_min, pit_max],
   [2 pit_min, 4 pit_min - 1], [pit_min, 2 pit_min - 1] (e.g. [80, 143], [40, 79], [20, 39];
   Lag_max: the maximum of the correlation sum_n s[n] s[n-T], then normalised by the energy of
   the delayed segment); a shorter lag wins when its normalised correlation exceeds 0.85 times
   the longer one's (avoids picking pitch multiples).
   Cost: (pit_max - pit_min + 1) * L_frame multiply-accumulates.

   Norm_Corr / Pitch_cl: the past excitation at lag t is filtered by the impulse response h
   (the first lag by Convolve, each next one by the recursive update
   y_t[n] = y_{t-1}[n-1] + exc[-t] h[n]) and correlated with the target xn; the lag with the
   largest normalised correlation wins.

   G_pitch: the gain <xn, y1> / <y1, y1> in Q14, clamped to [0, 1.2].

   Inv_sqrt: 2^31 / sqrt(x) for x > 0 by normalisation to g * 2^(2k), g in [0.25, 1), and
   linear interpolation in a 49-entry table of 1/sqrt(g). */
#include "codec.h"

#define THRESHOLD 27853 /* 0.85 in Q15 */
#define PIT_CL_MAX_RANGE 16

Word32 Inv_sqrt(Word32 L_x)
{
    Word16 exp, k, i, a, tmp;
    Word32 L_y;

    if (L_x <= 0)
        return MAX_32;
    exp = norm_l(L_x);
    L_x = L_shl(L_x, exp); /* f * 2^31, f in [0.5, 1); x = f * 2^(31 - exp) */
    if ((exp & 1) == 0)
        L_x = L_shr(L_x, 1); /* odd power: x = (f / 2) * 2^(32 - exp) */
    k = shr(sub(32, exp), 1);  /* x = g * 2^(2k) */

    i = extract_h(L_shr(L_x, 9));                    /* g * 64, in [16, 63] */
    a = (Word16)(extract_l(L_shr(L_x, 10)) & 0x7fff); /* the next 15 bits of g */
    i = sub(i, 16);

    L_y = L_deposit_h(inv_sqrt_tab[i]);
    tmp = sub(inv_sqrt_tab[i], inv_sqrt_tab[i + 1]);
    L_y = L_msu(L_y, tmp, a); /* (1/sqrt(g)) * 2^30 */
    return L_shr(L_y, sub(k, 1));
}

/* The lag in [lag_min, lag_max] maximising sum_n sig[n] sig[n - lag] (searched downwards, so
   the smaller lag wins a tie); *cor_max receives the maximum divided by the root energy of the
   delayed segment, halved and saturated to 16 bits.  sig[-lag_max .. L_frame - 1] must be
   valid. */
Word16 Lag_max(const Word16 sig[], Word16 L_frame, Word16 lag_max, Word16 lag_min,
               Word16 *cor_max)
{
    Word16 i, j, p_max, max_h, max_l, ener_h, ener_l;
    Word32 max, t0;

    max = MIN_32;
    p_max = lag_max;
    for (i = lag_max; i >= lag_min; i--) {
        t0 = 0;
        for (j = 0; j < L_frame; j++)
            t0 = L_mac(t0, sig[j], sig[j - i]);
        if (t0 >= max) {
            max = t0;
            p_max = i;
        }
    }

    t0 = 0;
    for (j = 0; j < L_frame; j++)
        t0 = L_mac(t0, sig[j - p_max], sig[j - p_max]);
    t0 = Inv_sqrt(t0);

    L_Extract(max, &max_h, &max_l);
    L_Extract(t0, &ener_h, &ener_l);
    t0 = Mpy_32(max_h, max_l, ener_h, ener_l); /* max / sqrt(energy) */
    t0 = L_shl(t0, 15);
    *cor_max = extract_h(t0);
    return p_max;
}

/* signal[-pit_max .. L_frame - 1] must be valid; pit_max <= PIT_MAX, L_frame <= L_FRAME,
   1 <= pit_min, 4 pit_min <= pit_max. */
Word16 Pitch_ol(const Word16 signal[], Word16 pit_min, Word16 pit_max, Word16 L_frame)
{
    Word16 i, n, max1, max2, max3, p_max1, p_max2, p_max3, t, sec2, sec3;
    Word16 scaled_signal[PIT_MAX + L_FRAME];
    const Word16 *scal_sig;
    Word32 t0;

    n = add(pit_max, L_frame);

    /* Choose a scaling from the energy of the whole buffer. */
    Overflow = 0;
    t0 = 0;
    for (i = 0; i < n; i++)
        t0 = L_mac(t0, signal[i - pit_max], signal[i - pit_max]);
    if (Overflow != 0) {
        for (i = 0; i < n; i++)
            scaled_signal[i] = shr(signal[i - pit_max], 3);
    } else if (t0 < 1048576) {
        for (i = 0; i < n; i++)
            scaled_signal[i] = shl(signal[i - pit_max], 3);
    } else {
        for (i = 0; i < n; i++)
            scaled_signal[i] = signal[i - pit_max];
    }
    scal_sig = &scaled_signal[pit_max];

    sec2 = shl(pit_min, 1);
    sec3 = shl(pit_min, 2);
    p_max1 = Lag_max(scal_sig, L_frame, pit_max, sec3, &max1);
    p_max2 = Lag_max(scal_sig, L_frame, sub(sec3, 1), sec2, &max2);
    p_max3 = Lag_max(scal_sig, L_frame, sub(sec2, 1), pit_min, &max3);

    /* Favour the shorter lags. */
    t = mult(max1, THRESHOLD);
    if (t < max2) {
        max1 = max2;
        p_max1 = p_max2;
    }
    t = mult(max1, THRESHOLD);
    if (t < max3)
        p_max1 = p_max3;
    return p_max1;
}

/* exc[n] = exc[n - T0], n = 0..L_subfr-1 (repeats the last period when T0 < L_subfr);
   exc[-T0 .. -1] must be valid. */
void Pred_lt(Word16 exc[], Word16 T0, Word16 L_subfr)
{
    Word16 n;
    for (n = 0; n < L_subfr; n++)
        exc[n] = exc[n - T0];
}

/* corr_norm[t - t_min] = <xn, y_t> / sqrt(<y_t, y_t>) for t = t_min..t_max, where y_t is the
   excitation at lag t filtered by h (Q12).  exc[-t_max .. L_SUBFR - t_min - 1] must be
   valid; t_max - t_min < PIT_CL_MAX_RANGE. */
void Norm_Corr(const Word16 exc[], const Word16 xn[], const Word16 h[], Word16 t_min,
               Word16 t_max, Word16 corr_norm[])
{
    Word16 i, j, k, corr_h, corr_l, en_h, en_l;
    Word16 excf[L_SUBFR];
    Word32 s, c;

    k = negate(t_min);
    Convolve(&exc[k], h, excf, L_SUBFR);

    for (i = t_min; i <= t_max; i++) {
        s = 0;
        for (j = 0; j < L_SUBFR; j++)
            s = L_mac(s, excf[j], excf[j]);
        c = 0;
        for (j = 0; j < L_SUBFR; j++)
            c = L_mac(c, xn[j], excf[j]);

        s = Inv_sqrt(s);
        L_Extract(c, &corr_h, &corr_l);
        L_Extract(s, &en_h, &en_l);
        c = Mpy_32(corr_h, corr_l, en_h, en_l);
        c = L_shl(c, 15);
        corr_norm[i - t_min] = extract_h(c);

        if (i != t_max) {
            /* Filtered excitation of the next lag, one sample further back. */
            k--;
            for (j = L_SUBFR - 1; j > 0; j--) {
                s = L_mult(exc[k], h[j]);
                s = L_shl(s, 3);
                excf[j] = add(extract_h(s), excf[j - 1]);
            }
            s = L_mult(exc[k], h[0]);
            s = L_shl(s, 3);
            excf[0] = extract_h(s);
        }
    }
}

Word16 Pitch_cl(const Word16 exc[], const Word16 xn[], const Word16 h[], Word16 t0_min,
                Word16 t0_max)
{
    Word16 i, lag, max;
    Word16 corr[PIT_CL_MAX_RANGE];

    if (sub(t0_max, t0_min) >= PIT_CL_MAX_RANGE) /* at most PIT_CL_MAX_RANGE lags */
        t0_max = add(t0_min, PIT_CL_MAX_RANGE - 1);
    Norm_Corr(exc, xn, h, t0_min, t0_max, corr);
    lag = t0_min;
    max = corr[0];
    for (i = 1; i <= t0_max - t0_min; i++) {
        if (corr[i] > max) {
            max = corr[i];
            lag = add(t0_min, i);
        }
    }
    return lag;
}

Word16 G_pitch(const Word16 xn[], const Word16 y1[], Word16 L_subfr)
{
    Word16 i, xy, yy, exp_xy, exp_yy, gain;
    Word16 scaled_y1[L_SUBFR], scaled_xn[L_SUBFR];
    Word32 s, s1;

    Overflow = 0;
    s = 1;
    for (i = 0; i < L_subfr; i++)
        s = L_mac(s, y1[i], y1[i]);
    s1 = 0;
    for (i = 0; i < L_subfr; i++)
        s1 = L_mac(s1, xn[i], y1[i]);

    if (Overflow != 0) {
        /* Scale both by 1/4: the ratio is unchanged. */
        for (i = 0; i < L_subfr; i++) {
            scaled_y1[i] = shr(y1[i], 2);
            scaled_xn[i] = shr(xn[i], 2);
        }
        s = 1;
        for (i = 0; i < L_subfr; i++)
            s = L_mac(s, scaled_y1[i], scaled_y1[i]);
        s1 = 0;
        for (i = 0; i < L_subfr; i++)
            s1 = L_mac(s1, scaled_xn[i], scaled_y1[i]);
    }

    exp_yy = norm_l(s);
    yy = round_fx(L_shl(s, exp_yy));
    exp_xy = norm_l(s1);
    xy = round_fx(L_shl(s1, exp_xy));
    if (xy <= 0)
        return 0;

    /* xy / 2 < yy, so div_s applies: gain = xy / yy in Q14. */
    xy = shr(xy, 1);
    gain = div_s(xy, yy);
    i = sub(exp_xy, exp_yy);
    gain = shr(gain, i);
    if (gain > 19661) /* 1.2 in Q14 */
        gain = 19661;
    return gain;
}
