/* filters.c -- the filters of the codec: bandwidth expansion of A(z), LP residual (FIR
   inverse filter), LP synthesis (all-pole IIR with memory), convolution with an impulse
   response, and the input high-pass pre-processing.

   Formats: A(z) coefficients in Q12 (a[0] = 4096), signals in Q0.  The residual and synthesis
   filters accumulate 2 * a * x products (L_mac) and shift left by 3 to bring Q13 to Q16, then
   round to 16 bits.  Cost per output sample: M + 1 multiply-accumulates; Convolve is
   L (L + 1) / 2 multiply-accumulates. */
#include "codec.h"

/* Pre_Process state: the last two inputs, the last two outputs in DPF. */
static Word16 pp_x0, pp_x1;
static Word16 pp_y1_hi, pp_y1_lo, pp_y2_hi, pp_y2_lo;

/* a_exp[i] = a[i] * gamma^i (fac[i-1] = gamma^i in Q15), rounded. */
void Weight_Ai(const Word16 a[], const Word16 fac[], Word16 a_exp[])
{
    Word16 i;
    a_exp[0] = a[0];
    for (i = 1; i <= M; i++)
        a_exp[i] = round_fx(L_mult(a[i], fac[i - 1]));
}

/* y[i] = sum_{j=0..M} a[j] x[i-j], i = 0..lg-1.  x must have M valid samples before x[0]. */
void Residu(const Word16 a[], const Word16 x[], Word16 y[], Word16 lg)
{
    Word16 i, j;
    Word32 s;
    for (i = 0; i < lg; i++) {
        s = L_mult(x[i], a[0]);
        for (j = 1; j <= M; j++)
            s = L_mac(s, a[j], x[i - j]);
        s = L_shl(s, 3);
        y[i] = round_fx(s);
    }
}

/* y[i] = x[i] - sum_{j=1..M} a[j] y[i-j] (a[0] = 4096 is unity), with the M previous outputs
   in mem[].  lg <= L_FRAME; y may be x.  If update != 0, mem[] receives the last M outputs
   (lg >= M). */
void Syn_filt(const Word16 a[], const Word16 x[], Word16 y[], Word16 lg, Word16 mem[],
              Word16 update)
{
    Word16 i, j;
    Word16 tmp[L_FRAME + M];
    Word32 s;

    for (i = 0; i < M; i++)
        tmp[i] = mem[i];
    for (i = 0; i < lg; i++) {
        s = L_mult(x[i], a[0]);
        for (j = 1; j <= M; j++)
            s = L_msu(s, a[j], tmp[M + i - j]);
        s = L_shl(s, 3);
        tmp[M + i] = round_fx(s);
    }
    for (i = 0; i < lg; i++)
        y[i] = tmp[M + i];
    if (update != 0) {
        for (i = 0; i < M; i++)
            mem[i] = y[lg - M + i];
    }
}

/* y[n] = sum_{i=0..n} x[i] h[n-i], n = 0..L-1, h in Q12. */
void Convolve(const Word16 x[], const Word16 h[], Word16 y[], Word16 L)
{
    Word16 i, n;
    Word32 s;
    for (n = 0; n < L; n++) {
        s = 0;
        for (i = 0; i <= n; i++)
            s = L_mac(s, x[i], h[n - i]);
        s = L_shl(s, 3);
        y[n] = extract_h(s);
    }
}

/* Clears the pre-processing filter's state (a helper of the programs, not a kernel). */
static void Pre_Process_reset(void)
{
    pp_x0 = 0;
    pp_x1 = 0;
    pp_y1_hi = 0;
    pp_y1_lo = 0;
    pp_y2_hi = 0;
    pp_y2_lo = 0;
}

/* Second-order high-pass filter (80 Hz, gain 1/2), in place:
   y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] + a1 y[n-1] + a2 y[n-2]
   with b in Q12, a in Q14 and y kept in DPF at 2^16 per sample unit. */
void Pre_Process(Word16 signal[], Word16 lg)
{
    Word16 i, x2;
    Word32 L_tmp, L_fb;

    for (i = 0; i < lg; i++) {
        x2 = pp_x1;
        pp_x1 = pp_x0;
        pp_x0 = signal[i];

        /* feedback (a1 y[n-1] + a2 y[n-2]) / 2, in 2^16 units */
        L_fb = Mpy_32_16(pp_y1_hi, pp_y1_lo, hpf_a[1]);
        L_tmp = Mpy_32_16(pp_y2_hi, pp_y2_lo, hpf_a[2]);
        L_fb = L_add(L_fb, L_tmp);

        /* feed-forward b x, Q13, then to 2^15 units */
        L_tmp = L_mult(pp_x0, hpf_b[0]);
        L_tmp = L_mac(L_tmp, pp_x1, hpf_b[1]);
        L_tmp = L_mac(L_tmp, x2, hpf_b[2]);
        L_tmp = L_shl(L_tmp, 2);

        L_tmp = L_add(L_tmp, L_fb);
        L_tmp = L_shl(L_tmp, 1); /* y in 2^16 units */
        signal[i] = round_fx(L_tmp);

        pp_y2_hi = pp_y1_hi;
        pp_y2_lo = pp_y1_lo;
        L_Extract(L_tmp, &pp_y1_hi, &pp_y1_lo);
    }
}
