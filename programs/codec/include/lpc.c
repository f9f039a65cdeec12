/* lpc.c -- LPC analysis: windowed autocorrelation, lag windowing, Levinson-Durbin recursion,
   all in ETSI-style fixed point (basic_op.c).

   Autocorr: y = x * window (Q15, rounded); r[0] = 1 + sum y^2 is recomputed with y scaled
   down by 4 until it no longer saturates; then every r[k] is normalised by the same shift and
   returned as DPF (r_h, r_l).  Cost: L_WINDOW * (m + 2) multiply-accumulates.

   Levinson: the classical recursion on the normalised autocorrelations
       k_i = -(r[i] + sum_{j<i} a[j] r[i-j]) / alpha,   a'[j] = a[j] + k_i a[i-j],
       alpha' = alpha (1 - k_i^2),
   with a[] kept in Q27 DPF, alpha normalised at each step, 1/alpha by Div_32.  If a reflection
   coefficient reaches |k| > 32750/32768 (unstable filter) the previous frame's coefficients
   are returned instead.  Output: A in Q12 (A[0] = 4096), the first 4 reflection coefficients
   in Q15.  Cost: O(M^2) DPF multiplications. */
#include "codec.h"

/* Coefficients of the last stable filter (Levinson's fallback). */
static Word16 levinson_old_A[MP1] = { 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

Word16 Autocorr(const Word16 x[], Word16 m, Word16 r_h[], Word16 r_l[], const Word16 wind[])
{
    Word16 i, j, norm, overfl_shft = 0;
    Word16 y[L_WINDOW];
    Word32 sum;

    for (i = 0; i < L_WINDOW; i++)
        y[i] = mult_r(x[i], wind[i]);

    /* Energy; scale the windowed signal down until it fits. */
    do {
        Overflow = 0;
        sum = 1;
        for (i = 0; i < L_WINDOW; i++)
            sum = L_mac(sum, y[i], y[i]);
        if (Overflow != 0) {
            for (i = 0; i < L_WINDOW; i++)
                y[i] = shr(y[i], 2);
            overfl_shft = add(overfl_shft, 4);
        }
    } while (Overflow != 0);

    norm = norm_l(sum);
    sum = L_shl(sum, norm);
    L_Extract(sum, &r_h[0], &r_l[0]);

    for (i = 1; i <= m; i++) {
        sum = 0;
        for (j = 0; j < L_WINDOW - i; j++)
            sum = L_mac(sum, y[j], y[j + i]);
        sum = L_shl(sum, norm);
        L_Extract(sum, &r_h[i], &r_l[i]);
    }
    return sub(norm, overfl_shft);
}

/* r[i] *= lag window w(i), i = 1..m (DPF x DPF). */
void Lag_window(Word16 m, Word16 r_h[], Word16 r_l[])
{
    Word16 i;
    Word32 x;
    for (i = 1; i <= m; i++) {
        x = Mpy_32(r_h[i], r_l[i], lag_h[i - 1], lag_l[i - 1]);
        L_Extract(x, &r_h[i], &r_l[i]);
    }
}

/* alpha * (1 - k^2), renormalised; returns the new alpha as DPF and adds the normalisation
   shift to *alp_exp. */
static void levinson_update_alpha(Word16 Kh, Word16 Kl, Word16 *alp_h, Word16 *alp_l,
                                  Word16 *alp_exp)
{
    Word16 hi, lo, shift;
    Word32 t0;
    t0 = Mpy_32(Kh, Kl, Kh, Kl);
    t0 = L_abs(t0);
    t0 = L_sub(MAX_32, t0); /* 1 - k^2 */
    L_Extract(t0, &hi, &lo);
    t0 = Mpy_32(*alp_h, *alp_l, hi, lo);
    shift = norm_l(t0);
    t0 = L_shl(t0, shift);
    L_Extract(t0, alp_h, alp_l);
    *alp_exp = add(*alp_exp, shift);
}

void Levinson(const Word16 Rh[], const Word16 Rl[], Word16 A[], Word16 rc[])
{
    Word16 i, j, coef;
    Word16 Kh, Kl;
    Word16 alp_h, alp_l, alp_exp;
    Word16 Ah[MP1], Al[MP1];   /* a[i] in Q27, DPF */
    Word16 Anh[MP1], Anl[MP1]; /* next iteration's a[i] */
    Word32 t0, t1, t2;

    /* k1 = -r[1] / r[0] */
    t1 = L_Comp(Rh[1], Rl[1]);
    t2 = L_abs(t1);
    t0 = Div_32(t2, Rh[0], Rl[0]);
    if (t1 > 0)
        t0 = L_negate(t0);
    L_Extract(t0, &Kh, &Kl);
    rc[0] = round_fx(t0);
    t0 = L_shr(t0, 4); /* Q31 -> Q27 */
    L_Extract(t0, &Ah[1], &Al[1]);

    /* alpha = r[0] * (1 - k1^2) */
    alp_h = Rh[0];
    alp_l = Rl[0];
    alp_exp = 0;
    levinson_update_alpha(Kh, Kl, &alp_h, &alp_l, &alp_exp);

    for (i = 2; i <= M; i++) {
        /* t0 = sum_{j=1}^{i-1} r[j] a[i-j] + r[i] */
        t0 = 0;
        for (j = 1; j < i; j++) {
            t1 = Mpy_32(Rh[j], Rl[j], Ah[i - j], Al[i - j]);
            t0 = L_add(t0, t1);
        }
        t0 = L_shl(t0, 4); /* Q27 -> Q31 */
        t1 = L_Comp(Rh[i], Rl[i]);
        t0 = L_add(t0, t1);

        /* k_i = -t0 / alpha */
        t1 = L_abs(t0);
        t2 = Div_32(t1, alp_h, alp_l);
        if (t0 > 0)
            t2 = L_negate(t2);
        t2 = L_shl(t2, alp_exp); /* undo alpha's normalisation */
        L_Extract(t2, &Kh, &Kl);
        if (i < 5)
            rc[i - 1] = round_fx(t2);

        if (abs_s(Kh) > 32750) {
            /* Unstable: keep the previous filter. */
            for (j = 0; j <= M; j++)
                A[j] = levinson_old_A[j];
            for (j = 0; j < 4; j++)
                rc[j] = 0;
            return;
        }

        /* a'[j] = a[j] + k_i a[i-j], a'[i] = k_i */
        for (j = 1; j < i; j++) {
            t0 = Mpy_32(Kh, Kl, Ah[i - j], Al[i - j]);
            t1 = L_Comp(Ah[j], Al[j]);
            t0 = L_add(t0, t1);
            L_Extract(t0, &Anh[j], &Anl[j]);
        }
        t2 = L_shr(t2, 4);
        L_Extract(t2, &Anh[i], &Anl[i]);

        levinson_update_alpha(Kh, Kl, &alp_h, &alp_l, &alp_exp);

        for (j = 1; j <= i; j++) {
            Ah[j] = Anh[j];
            Al[j] = Anl[j];
        }
    }

    /* Q27 -> Q12, rounded. */
    A[0] = 4096;
    levinson_old_A[0] = 4096;
    for (i = 1; i <= M; i++) {
        t0 = L_Comp(Ah[i], Al[i]);
        t0 = L_shl(t0, 1);
        coef = round_fx(t0);
        A[i] = coef;
        levinson_old_A[i] = coef;
    }
}
