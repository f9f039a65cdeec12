/* LPC analysis of the speech-codec set: windowed autocorrelation (with its overflow
   rescaling), lag window and fixed-point Levinson-Durbin on 4 frames of the synthetic signal
   (one clipping, one quiet), plus a silent frame and a full-scale constant frame (a
   near-singular autocorrelation that drives Levinson towards its instability fallback).
   Prints per frame: the autocorrelation normalisation, checksums of r_h/r_l before and after
   the lag window, the 4 reflection coefficients and a checksum of A(z).
   Ranges: all arithmetic is by the saturating basic operators (include/basic_op.c). */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/tables.c"
#include "include/lpc.c"
#include "include/harness.c"

#define NFRAMES 4

static Word16 speech[L_WINDOW];

static void analyse(void)
{
    Word16 r_h[MP1], r_l[MP1], A[MP1], rc[4];
    Word16 scale;
    int i;

    scale = Autocorr(speech, M, r_h, r_l, lpc_window);
    put_line(scale);
    put_line(r_h[0]);
    put_line(checksum16(r_h, MP1));
    put_line(checksum16(r_l, MP1));
    Lag_window(M, r_h, r_l);
    put_line(checksum16(r_h, MP1));
    put_line(checksum16(r_l, MP1));
    Levinson(r_h, r_l, A, rc);
    for (i = 0; i < 4; i++)
        put_line(rc[i]);
    put_line(A[1]);
    put_line(checksum16(A, MP1));
}

int main(void)
{
    int f, i;

    gen_speech(speech, L_WINDOW - L_FRAME);
    for (f = 0; f < NFRAMES; f++) {
        for (i = 0; i < L_WINDOW - L_FRAME; i++)
            speech[i] = speech[i + L_FRAME];
        gen_speech(&speech[L_WINDOW - L_FRAME], L_FRAME);
        analyse();
    }

    /* Silence: r[0] = 1, all other lags 0, A(z) = 1. */
    for (i = 0; i < L_WINDOW; i++)
        speech[i] = 0;
    analyse();

    /* Full-scale constant. */
    for (i = 0; i < L_WINDOW; i++)
        speech[i] = MAX_16;
    analyse();
    return 0;
}
