/* LPC <-> LSP conversions of the speech-codec set: Az_lsp (Chebyshev-series root search on a
   cosine grid), Lsp_Az (polynomial reconstruction), and Int_lpc (subframe interpolation) on
   the LPC filters of 3 frames of the synthetic signal, plus the flat filter A(z) = 1 (whose
   LSPs are cos(pi k / 11)) and a non-minimum-phase filter (too few roots: Az_lsp must keep
   the previous LSPs).
   Prints per conversion: a checksum of the LSPs, whether they are strictly decreasing
   (ordered on the unit circle), whether they equal the previous ones (Az_lsp's fallback), the
   largest |a - a'| over the round trip A -> LSP -> A' (Q12), a checksum of the interpolated
   filters and whether the last subframe's filter is A'.
   Ranges: all arithmetic is by the saturating basic operators (include/basic_op.c). */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/tables.c"
#include "include/lpc.c"
#include "include/lsp.c"
#include "include/harness.c"

#define NFRAMES 3

static Word16 speech[L_WINDOW];
static Word16 lsp_old[M];

static int strictly_decreasing(const Word16 v[], int n)
{
    int i;
    for (i = 1; i < n; i++)
        if (v[i] >= v[i - 1])
            return 0;
    return 1;
}

static int max_abs_diff(const Word16 a[], const Word16 b[], int n)
{
    int i, d, m = 0;
    for (i = 0; i < n; i++) {
        d = a[i] - b[i];
        if (d < 0)
            d = -d;
        if (d > m)
            m = d;
    }
    return m;
}

/* A -> LSP -> A', then the interpolated filters between lsp_old and the new LSPs. */
static void convert(const Word16 A[])
{
    Word16 lsp_new[M], A2[MP1], Az[NB_SUBFR * MP1];
    int i;

    Az_lsp(A, lsp_new, lsp_old);
    put_line(checksum16(lsp_new, M));
    put_line(strictly_decreasing(lsp_new, M));
    put_line(max_abs_diff(lsp_new, lsp_old, M) == 0);
    Lsp_Az(lsp_new, A2);
    put_line(max_abs_diff(A, A2, MP1));
    Int_lpc(lsp_old, lsp_new, Az);
    put_line(checksum16(Az, NB_SUBFR * MP1));
    put_line(max_abs_diff(&Az[(NB_SUBFR - 1) * MP1], A2, MP1) == 0);
    for (i = 0; i < M; i++)
        lsp_old[i] = lsp_new[i];
}

int main(void)
{
    Word16 r_h[MP1], r_l[MP1], A[MP1], rc[4], f[NC + 1];
    int frame, i;
    unsigned int h = 0u;

    for (i = 0; i < M; i++)
        lsp_old[i] = lsp_init[i];

    gen_speech(speech, L_WINDOW - L_FRAME);
    for (frame = 0; frame < NFRAMES; frame++) {
        for (i = 0; i < L_WINDOW - L_FRAME; i++)
            speech[i] = speech[i + L_FRAME];
        gen_speech(&speech[L_WINDOW - L_FRAME], L_FRAME);
        Autocorr(speech, M, r_h, r_l, lpc_window);
        Lag_window(M, r_h, r_l);
        Levinson(r_h, r_l, A, rc);
        convert(A);
    }

    /* Chebyshev series of the last frame's F1 over the whole grid. */
    f[0] = 1024;
    for (i = 0; i < NC; i++)
        f[i + 1] = sub(shr(add(A[i + 1], A[M - i]), 2), f[i]);
    for (i = 0; i <= GRID_POINTS; i++)
        h = h * 31u + (unsigned int)(Chebps(lsp_grid[i], f, NC) & 0xffff);
    put_line((int)(h >> 1));

    /* A(z) = 1: the LSPs are cos(pi k / 11), k = 1..10, i.e. the lsp_init table. */
    A[0] = 4096;
    for (i = 1; i <= M; i++)
        A[i] = 0;
    convert(A);
    put_line(max_abs_diff(lsp_old, lsp_init, M));

    /* A(z) = (1 - 1.5 z^-1)(1 - 0.5 z^-1): a zero outside the unit circle. */
    A[1] = -8192;
    A[2] = 3072;
    convert(A);
    return 0;
}
