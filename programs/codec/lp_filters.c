/* Filters of the speech-codec set: high-pass pre-processing, bandwidth expansion (Weight_Ai),
   LP residual (Residu), LP synthesis (Syn_filt), and convolution with an impulse response
   (Convolve), on 3 frames of the synthetic signal with the frames' own LPC filters.
   Checks printed per frame: residual -> synthesis reconstructs the speech (largest sample
   error), Convolve(residual, impulse response of 1/A) equals the zero-state synthesis of the
   same subframe up to rounding (largest difference), and checksums of the weighted filters,
   the residual, the perceptually weighted speech and the weighted impulse response.
   Ranges: all arithmetic is by the saturating basic operators (include/basic_op.c). */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/tables.c"
#include "include/lpc.c"
#include "include/filters.c"
#include "include/harness.c"

#define NFRAMES 3

static Word16 speech[L_WINDOW];
static Word16 mem_syn[M], mem_w[M];

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

static void filter_frame(const Word16 A[])
{
    Word16 Ap1[MP1], Ap2[MP1], res[L_FRAME], syn[L_FRAME], wsp[L_FRAME];
    Word16 imp[L_SUBFR], h[L_SUBFR], h1[L_SUBFR], y_conv[L_SUBFR], y_syn[L_SUBFR];
    Word16 zero[M];
    const Word16 *frame = &speech[L_WINDOW - L_FRAME];
    int i;

    Weight_Ai(A, gamma1_pow, Ap1);
    Weight_Ai(A, gamma2_pow, Ap2);
    put_line(checksum16(Ap1, MP1));
    put_line(checksum16(Ap2, MP1));

    /* residual, then synthesis with the filter's own memory */
    Residu(A, frame, res, L_FRAME);
    put_line(checksum16(res, L_FRAME));
    Syn_filt(A, res, syn, L_FRAME, mem_syn, 1);
    put_line(max_abs_diff(syn, frame, L_FRAME));

    /* impulse response of 1/A(z) (unit = 4096, Q12) */
    for (i = 0; i < M; i++)
        zero[i] = 0;
    for (i = 0; i < L_SUBFR; i++)
        imp[i] = 0;
    imp[0] = 4096;
    Syn_filt(A, imp, h, L_SUBFR, zero, 0);
    put_line(checksum16(h, L_SUBFR));
    Convolve(res, h, y_conv, L_SUBFR);
    Syn_filt(A, res, y_syn, L_SUBFR, zero, 0);
    put_line(max_abs_diff(y_conv, y_syn, L_SUBFR));

    /* weighted impulse response Ap1(z) / (A(z) Ap2(z)) */
    for (i = 0; i <= M; i++)
        imp[i] = Ap1[i];
    for (i = MP1; i < L_SUBFR; i++)
        imp[i] = 0;
    Syn_filt(A, imp, h1, L_SUBFR, zero, 0);
    Syn_filt(Ap2, h1, h1, L_SUBFR, zero, 0);
    put_line(checksum16(h1, L_SUBFR));

    /* perceptually weighted speech Ap1(z) / Ap2(z) */
    Residu(Ap1, frame, wsp, L_FRAME);
    Syn_filt(Ap2, wsp, wsp, L_FRAME, mem_w, 1);
    put_line(checksum16(wsp, L_FRAME));
}

int main(void)
{
    Word16 r_h[MP1], r_l[MP1], A[MP1], rc[4];
    int frame, i;

    Pre_Process_reset();
    for (i = 0; i < M; i++) {
        mem_syn[i] = 0;
        mem_w[i] = 0;
    }
    for (i = 0; i < L_WINDOW - L_FRAME; i++)
        speech[i] = 0;
    for (frame = 0; frame < NFRAMES; frame++) {
        for (i = 0; i < L_WINDOW - L_FRAME; i++)
            speech[i] = speech[i + L_FRAME];
        gen_speech(&speech[L_WINDOW - L_FRAME], L_FRAME);
        Pre_Process(&speech[L_WINDOW - L_FRAME], L_FRAME);
        put_line(checksum16(&speech[L_WINDOW - L_FRAME], L_FRAME));
        Autocorr(speech, M, r_h, r_l, lpc_window);
        Lag_window(M, r_h, r_l);
        Levinson(r_h, r_l, A, rc);
        filter_frame(A);
    }
    return 0;
}
