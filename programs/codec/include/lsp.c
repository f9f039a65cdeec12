/* lsp.c -- conversions between LPC coefficients and line spectral pairs (LSPs, the cosines of
   the line spectral frequencies), and LSP interpolation over the subframes.

   Az_lsp: from A(z) (order 10, Q12) form the symmetric and antisymmetric polynomials
       F1(z) = (A(z) + z^-11 A(1/z)) / (1 + z^-1),  F2(z) = (A(z) - z^-11 A(1/z)) / (1 - z^-1),
   both of order 5 in z + 1/z, coefficients in Q10.  Their roots interlace on the unit circle.
   Each is evaluated as a Chebyshev series in x = cos(w) (Chebps, Clenshaw recurrence in DPF);
   the roots are found by walking a 61-point cosine grid from x = 1 to x = -1, alternating
   between F1 and F2, refining each sign change by 4 bisections and a final linear
   interpolation.  If fewer than 10 roots are found the previous frame's LSPs are kept.
   Cost: at most 61 + 10 * 5 evaluations of a degree-5 series.

   Lsp_Az: F1 and F2 rebuilt from the LSPs as products of (1 - 2 q z^-1 + z^-2) factors
   (Get_lsp_pol, Q24), multiplied by (1 + z^-1) and (1 - z^-1), and A = (F1 + F2) / 2 in Q12.

   Int_lpc: the LSPs of subframes 1..3 are interpolated between the previous and the current
   frame (weights 3/4-1/4, 1/2-1/2, 1/4-3/4), subframe 4 takes the current ones, and each set
   is converted to A(z). */
#include "codec.h"

/* Weights of the new frame's LSPs in subframes 1..3, Q15. */
static const Word16 int_lpc_w_new[NB_SUBFR - 1] = { 8192, 16384, 24576 };

/* Chebyshev series C(x) = T_n(x) + f[1] T_{n-1}(x) + ... + f[n-1] T_1(x) + f[n] / 2,
   x in Q15, f in Q10, by b_k = 2 x b_{k+1} - b_{k+2} + f[k] in Q24 DPF.  Result in Q14. */
Word16 Chebps(Word16 x, const Word16 f[], Word16 n)
{
    Word16 i;
    Word16 b0_h, b0_l, b1_h, b1_l, b2_h, b2_l;
    Word32 t0;

    b2_h = 256; /* b2 = 1.0 in Q24 */
    b2_l = 0;
    t0 = L_mult(x, 512);        /* 2 x in Q24 */
    t0 = L_mac(t0, f[1], 8192); /* + f[1], Q10 -> Q24 */
    L_Extract(t0, &b1_h, &b1_l);

    for (i = 2; i < n; i++) {
        t0 = Mpy_32_16(b1_h, b1_l, x); /* x b1 */
        t0 = L_shl(t0, 1);             /* 2 x b1 */
        t0 = L_mac(t0, b2_h, MIN_16);  /* - b2 (high part: b2_h * 2^16) */
        t0 = L_msu(t0, b2_l, 1);       /* - b2 (low part) */
        t0 = L_mac(t0, f[i], 8192);    /* + f[i] */
        L_Extract(t0, &b0_h, &b0_l);
        b2_h = b1_h;
        b2_l = b1_l;
        b1_h = b0_h;
        b1_l = b0_l;
    }

    t0 = Mpy_32_16(b1_h, b1_l, x); /* x b1 */
    t0 = L_mac(t0, b2_h, MIN_16);  /* - b2 */
    t0 = L_msu(t0, b2_l, 1);
    t0 = L_mac(t0, f[n], 4096);    /* + f[n] / 2 */
    t0 = L_shl(t0, 6);             /* Q24 -> Q30 */
    return extract_h(t0);          /* Q14 */
}

/* The root between xlow (value ylow) and xhigh (value yhigh), which have opposite signs:
   linear interpolation xlow - ylow (xhigh - xlow) / (yhigh - ylow). */
static Word16 lsp_interpolate_root(Word16 xlow, Word16 ylow, Word16 xhigh, Word16 yhigh)
{
    Word16 x, y, sign, exp;
    Word32 t0;

    x = sub(xhigh, xlow);
    y = sub(yhigh, ylow);
    if (y == 0)
        return xlow;
    sign = y;
    y = abs_s(y);
    exp = norm_s(y);
    y = shl(y, exp);
    y = div_s((Word16)16383, y); /* 2^(29 - exp) / |yhigh - ylow| */
    t0 = L_mult(x, y);
    t0 = L_shr(t0, sub(20, exp));
    y = extract_l(t0); /* (xhigh - xlow) / |yhigh - ylow| * 2^10 */
    if (sign < 0)
        y = negate(y);
    t0 = L_mult(ylow, y);
    t0 = L_shr(t0, 11);
    return sub(xlow, extract_l(t0));
}

void Az_lsp(const Word16 a[], Word16 lsp[], const Word16 old_lsp[])
{
    Word16 i, j, nf, ip;
    Word16 xlow, ylow, xhigh, yhigh, xmid, ymid, xint, x;
    Word16 f1[NC + 1], f2[NC + 1];
    const Word16 *coef;
    Word32 t0;

    /* F1 and F2 in Q10 (a[] is Q12: (a + a) / 4). */
    f1[0] = 1024;
    f2[0] = 1024;
    for (i = 0; i < NC; i++) {
        t0 = L_mult(a[i + 1], 8192);
        t0 = L_mac(t0, a[M - i], 8192);
        x = extract_h(t0);
        f1[i + 1] = sub(x, f1[i]);

        t0 = L_mult(a[i + 1], 8192);
        t0 = L_msu(t0, a[M - i], 8192);
        x = extract_h(t0);
        f2[i + 1] = add(x, f2[i]);
    }

    /* Root search, alternating F1 / F2. */
    nf = 0;
    ip = 0;
    coef = f1;
    xlow = lsp_grid[0];
    ylow = Chebps(xlow, coef, NC);
    j = 0;
    while (nf < M && j < GRID_POINTS) {
        j++;
        xhigh = xlow;
        yhigh = ylow;
        xlow = lsp_grid[j];
        ylow = Chebps(xlow, coef, NC);

        if (L_mult(ylow, yhigh) <= 0) {
            /* Sign change: 4 bisections. */
            for (i = 0; i < 4; i++) {
                xmid = shr(xlow, 1);
                xmid = add(xmid, shr(xhigh, 1));
                ymid = Chebps(xmid, coef, NC);
                if (L_mult(ylow, ymid) <= 0) {
                    yhigh = ymid;
                    xhigh = xmid;
                } else {
                    ylow = ymid;
                    xlow = xmid;
                }
            }
            xint = lsp_interpolate_root(xlow, ylow, xhigh, yhigh);
            lsp[nf] = xint;
            xlow = xint;
            nf++;
            if (ip == 0) {
                ip = 1;
                coef = f2;
            } else {
                ip = 0;
                coef = f1;
            }
            ylow = Chebps(xlow, coef, NC);
        }
    }

    if (nf < M) {
        for (i = 0; i < M; i++)
            lsp[i] = old_lsp[i];
    }
}

/* One of F1 / F2 from every other LSP (lsp[0], lsp[2], ... of the caller's array), Q24:
   f = prod_{i=1..5} (1 - 2 q_i z^-1 + z^-2), keeping f[0..5] of the symmetric result. */
void Get_lsp_pol(const Word16 *lsp, Word32 *f)
{
    Word16 i, j, hi, lo, q;
    Word32 t0;

    f[0] = L_mult(4096, 2048);    /* 1.0 in Q24 */
    f[1] = L_msu(0, lsp[0], 512); /* -2 q_1 in Q24 */
    for (i = 2; i <= NC; i++) {
        q = lsp[2 * i - 2];
        f[i] = f[i - 2]; /* symmetry of the previous product */
        for (j = i; j > 1; j--) {
            /* f[j] = f[j] - 2 q f[j-1] + f[j-2] */
            L_Extract(f[j - 1], &hi, &lo);
            t0 = Mpy_32_16(hi, lo, q);
            t0 = L_shl(t0, 1);
            f[j] = L_add(f[j], f[j - 2]);
            f[j] = L_sub(f[j], t0);
        }
        f[1] = L_msu(f[1], q, 512); /* f[1] - 2 q f[0], f[0] = 1 */
    }
}

void Lsp_Az(const Word16 lsp[], Word16 a[])
{
    Word16 i, j;
    Word32 f1[NC + 1], f2[NC + 1], t0;

    Get_lsp_pol(&lsp[0], f1);
    Get_lsp_pol(&lsp[1], f2);

    for (i = NC; i > 0; i--) {
        f1[i] = L_add(f1[i], f1[i - 1]); /* F1(z) (1 + z^-1) */
        f2[i] = L_sub(f2[i], f2[i - 1]); /* F2(z) (1 - z^-1) */
    }

    a[0] = 4096;
    for (i = 1, j = M; i <= NC; i++, j--) {
        t0 = L_add(f1[i], f2[i]);
        a[i] = extract_l(L_shr_r(t0, 13)); /* (F1 + F2) / 2, Q24 -> Q12 */
        t0 = L_sub(f1[i], f2[i]);
        a[j] = extract_l(L_shr_r(t0, 13));
    }
}

/* Az receives NB_SUBFR sets of MP1 coefficients, one per subframe. */
void Int_lpc(const Word16 lsp_old[], const Word16 lsp_new[], Word16 Az[])
{
    Word16 i, k, w_new, w_old, part;
    Word16 lsp[M];

    for (k = 0; k < NB_SUBFR - 1; k++) {
        w_new = int_lpc_w_new[k];
        w_old = sub(MAX_16, w_new);
        w_old = add(w_old, 1); /* 32768 - w_new, representable since w_new > 0 */
        for (i = 0; i < M; i++) {
            part = mult(lsp_old[i], w_old);
            lsp[i] = mult(lsp_new[i], w_new);
            lsp[i] = add(lsp[i], part);
        }
        Lsp_Az(lsp, &Az[k * MP1]);
    }
    Lsp_Az(lsp_new, &Az[(NB_SUBFR - 1) * MP1]);
}
