/* Pitch analysis of the speech-codec set: Inv_sqrt (table + interpolation), open-loop pitch
   search (Pitch_ol with its three lag sections and Lag_max), and the closed-loop integer lag
   search on filtered past excitation (Norm_Corr, Pitch_cl) with long-term prediction (Pred_lt)
   and the pitch gain (G_pitch).
   Checks printed:
   * Inv_sqrt(m^2) against the exact 2^31 / m for 200 random m: the largest relative error in
     units of 2^-16, and whether it is within 32 units.  (Linear interpolation of g^-1/2 on
     [0.25, 1] with step 1/64 errs by at most (1/64)^2 / 8 * max|d2/dg2 g^-1/2| = 3.7e-4
     relative, i.e. 24 units; table rounding adds under 2.)
   * Pitch_ol on two half frames of the synthetic signal (after the high-pass filter) and on a
     copy scaled down by 2^-7 (the scale-up path): the lag found and the generator's period
     (they differ by a few samples: the search also correlates with the previous frame, whose
     period differs).
   * Pitch_cl on an excitation of known period P (P = 20, 57, 96, 141) filtered by a fixed
     two-pole impulse response: the lag found must be P, and G_pitch of the predicted
     excitation against a target at gain 1 (and 1/2) must be 16384 (8192) in Q14, +-1.
   Ranges: all arithmetic is by the saturating basic operators (include/basic_op.c). */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/tables.c"
#include "include/filters.c"
#include "include/pitch.c"
#include "include/harness.c"

static Word16 sig[PIT_MAX + L_FRAME];
static Word16 exc_buf[PIT_MAX + L_SUBFR];
static unsigned int rng = 4242u;

static unsigned int next_rand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng;
}

static void test_inv_sqrt(void)
{
    int i, max_err = 0;
    unsigned int h = 0u;
    for (i = 0; i < 200; i++) {
        /* m in [1, 46340] so that m^2 < 2^31 */
        Word32 m = (Word32)((next_rand() >> 8) % 46340u) + 1;
        Word32 y = Inv_sqrt(m * m);
        unsigned int ref = 2147483648u / (unsigned int)m;
        unsigned int d = (unsigned int)y > ref ? (unsigned int)y - ref : ref - (unsigned int)y;
        /* d / ref in units of 2^-16: (d * 2^8) / (ref / 2^8); ref >= 2^31 / 46340 > 2^15 */
        int err = d >= 0x800000u ? 0x7fffffff : (int)((d << 8) / (ref >> 8));
        if (err > max_err)
            max_err = err;
        h = h * 31u + (unsigned int)y;
    }
    put_line(max_err);
    put_line(max_err <= 32);
    put_line(Inv_sqrt(1));       /* the capped table entry: 32767 * 2^16 */
    put_line(Inv_sqrt(MAX_32));  /* ~ 2^31 / 2^15.5 */
    put_line((int)(h >> 1));
}

/* Open-loop pitch on the last half frame of sig (PIT_MAX past samples before it). */
static void open_loop(void)
{
    Word16 t = Pitch_ol(&sig[PIT_MAX + L_FRAME_BY2], PIT_MIN, PIT_MAX, L_FRAME_BY2);
    put_line(t);
    put_line(harness_period);
}

static void test_open_loop(void)
{
    Word16 scaled[PIT_MAX + L_FRAME];
    int i, half;
    Pre_Process_reset();
    /* warm-up: one frame of history */
    gen_speech(&sig[PIT_MAX], L_FRAME);
    Pre_Process(&sig[PIT_MAX], L_FRAME);
    for (half = 0; half < 2; half++) {
        for (i = 0; i < PIT_MAX + L_FRAME_BY2; i++)
            sig[i] = sig[i + L_FRAME_BY2];
        gen_speech(&sig[PIT_MAX + L_FRAME_BY2], L_FRAME_BY2);
        Pre_Process(&sig[PIT_MAX + L_FRAME_BY2], L_FRAME_BY2);
        open_loop();
    }
    /* a quiet copy: Pitch_ol scales it up by 8 before the search */
    for (i = 0; i < PIT_MAX + L_FRAME; i++)
        scaled[i] = shr(sig[i], 7);
    put_line(Pitch_ol(&scaled[PIT_MAX + L_FRAME_BY2], PIT_MIN, PIT_MAX, L_FRAME_BY2));
}

static void test_closed_loop(void)
{
    static const Word16 periods[4] = { 20, 57, 96, 141 };
    static const Word16 A[MP1] = { 4096, -4915, 2621, 0, 0, 0, 0, 0, 0, 0, 0 }; /* poles 0.8 */
    Word16 pattern[PIT_MAX];
    Word16 imp[L_SUBFR], h[L_SUBFR], xn[L_SUBFR], xn_half[L_SUBFR], y1[L_SUBFR], zero[M];
    Word16 *exc = &exc_buf[PIT_MAX];
    int k, i, ok_lag = 1, ok_gain = 1;
    Word16 P, t_min, t_max, lag, g1, g2;

    for (i = 0; i < M; i++)
        zero[i] = 0;
    for (i = 0; i < L_SUBFR; i++)
        imp[i] = 0;
    imp[0] = 4096;
    Syn_filt(A, imp, h, L_SUBFR, zero, 0); /* Q12 impulse response */
    put_line(checksum16(h, L_SUBFR));

    for (k = 0; k < 4; k++) {
        P = periods[k];
        for (i = 0; i < P; i++)
            pattern[i] = (Word16)((int)(next_rand() >> 20) - 2048);
        /* periodic past excitation ending just before exc[0] */
        for (i = 0; i < PIT_MAX; i++)
            exc_buf[PIT_MAX - 1 - i] = pattern[P - 1 - i % P];
        Pred_lt(exc, P, L_SUBFR); /* continues the period into the subframe */
        Convolve(exc, h, xn, L_SUBFR);
        for (i = 0; i < L_SUBFR; i++)
            xn_half[i] = shr(xn[i], 1);

        t_min = P - 3 < PIT_MIN ? PIT_MIN : P - 3;
        t_max = t_min + 6 > PIT_MAX ? PIT_MAX : t_min + 6;
        lag = Pitch_cl(exc, xn, h, t_min, t_max);
        put_line(lag);
        if (lag != P)
            ok_lag = 0;

        Pred_lt(exc, lag, L_SUBFR);
        Convolve(exc, h, y1, L_SUBFR);
        g1 = G_pitch(xn, y1, L_SUBFR);
        g2 = G_pitch(xn_half, y1, L_SUBFR);
        put_line(g1);
        put_line(g2);
        if (g1 < 16383 || g1 > 16385 || g2 < 8191 || g2 > 8193)
            ok_gain = 0;
    }
    put_line(ok_lag);
    put_line(ok_gain);
}

int main(void)
{
    test_inv_sqrt();
    test_open_loop();
    test_closed_loop();
    return 0;
}
