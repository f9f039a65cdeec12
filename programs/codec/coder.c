/* The frame driver of the speech-codec set: a CELP analysis-by-synthesis coder in the manner of
   the GSM EFR / AMR 12.2 encoders, built from every kernel of include/, run on 2 frames of the
   synthetic signal with all filter memories and buffers carried from frame to frame.

   Per frame (Coder_frame): high-pass pre-processing; windowed autocorrelation, lag window,
   Levinson-Durbin; LPC -> LSP; LSP interpolation and LSP -> LPC per subframe; perceptually
   weighted speech; open-loop pitch on the weighted speech decimated by 2 (lags 10..71, i.e.
   20..142 at the full rate).
   Per subframe (Coder_subframe): target signal (weighted speech minus the zero-input response,
   through the error and weighting filter memories); weighted impulse response; closed-loop
   integer pitch search around the open-loop lag; adaptive-codebook vector and gain; backward-
   filtered target, a 10-pulse codebook, its filtered vector and gain; excitation, synthesis, and the update
   of the filter memories.
   Prints per frame: the open-loop lag, per subframe the closed-loop lag, the two gains and a
   checksum of the pulse positions, a checksum of the synthesised speech, the energies (>> 4) of
   the pre-processed speech and of the reconstruction error, and their log2 ratio rounded down
   (norm_l difference), a coarse SNR in 3 dB steps.
   Ranges: all arithmetic is by the saturating basic operators (include/basic_op.c). */
#include "ssalab.h"
#include "include/basic_op.c"
#include "include/tables.c"
#include "include/lpc.c"
#include "include/lsp.c"
#include "include/filters.c"
#include "include/pitch.c"
#include "include/cbsearch.c"
#include "include/harness.c"

#define NFRAMES 2
#define PIT_MIN_DEC (PIT_MIN / 2)
#define PIT_MAX_DEC (PIT_MAX / 2)
#define L_FRAME_DEC (L_FRAME / 2)
#define PRM_SUBFR (3 + NB_PULSE) /* lag, pitch gain, code gain, pulse positions */
#define NB_PRM (1 + NB_SUBFR * PRM_SUBFR)

/* Encoder state, carried from frame to frame. */
static Word16 old_speech[L_WINDOW];                     /* analysis window; the frame is last */
static Word16 old_wsp_dec[PIT_MAX_DEC + L_FRAME_DEC];   /* decimated weighted speech */
static Word16 old_exc[PIT_MAX + L_FRAME];               /* past excitation, then the frame's */
static Word16 mem_syn[M], mem_w[M], mem_w0[M], mem_err[M];
static Word16 lsp_old[M];

static void coder_reset(void)
{
    int i;
    for (i = 0; i < L_WINDOW; i++)
        old_speech[i] = 0;
    for (i = 0; i < PIT_MAX_DEC + L_FRAME_DEC; i++)
        old_wsp_dec[i] = 0;
    for (i = 0; i < PIT_MAX + L_FRAME; i++)
        old_exc[i] = 0;
    for (i = 0; i < M; i++) {
        mem_syn[i] = 0;
        mem_w[i] = 0;
        mem_w0[i] = 0;
        mem_err[i] = 0;
        lsp_old[i] = lsp_init[i];
    }
    Pre_Process_reset();
}

/* One subframe: A = the subframe's LPC filter (Q12), speech = its pre-processed samples (with
   M past samples before), exc = its place in the excitation buffer (PIT_MAX past samples
   before), T_op = the open-loop lag.  Writes synth[0..L_SUBFR-1] and PRM_SUBFR parameters. */
void Coder_subframe(const Word16 A[], const Word16 speech[], Word16 exc[], Word16 T_op,
                    Word16 synth[], Word16 prm[])
{
    Word16 Ap1[MP1], Ap2[MP1], ai_zero[L_SUBFR], h1[L_SUBFR], zero[M];
    Word16 err[M + L_SUBFR], xn[L_SUBFR], xn2[L_SUBFR], y1[L_SUBFR], y2[L_SUBFR];
    Word16 dn[L_SUBFR], code[L_SUBFR], pos[NB_PULSE];
    Word16 i, t0_min, t0_max, T0, gain_pit, gain_code;
    Word32 L_tmp;

    Weight_Ai(A, gamma1_pow, Ap1);
    Weight_Ai(A, gamma2_pow, Ap2);

    /* LP residual, placed in the excitation buffer: lags below L_SUBFR read it. */
    Residu(A, speech, exc, L_SUBFR);

    /* Target: the residual through 1/A with the error memory (speech - synthesis), then
       through the weighting filter Ap1/Ap2 with the weighted-error memory. */
    for (i = 0; i < M; i++)
        err[i] = mem_err[i];
    Syn_filt(A, exc, &err[M], L_SUBFR, mem_err, 0);
    Residu(Ap1, &err[M], xn, L_SUBFR);
    Syn_filt(Ap2, xn, xn, L_SUBFR, mem_w0, 0);

    /* Impulse response of Ap1(z) / (A(z) Ap2(z)), Q12. */
    for (i = 0; i <= M; i++)
        ai_zero[i] = Ap1[i];
    for (i = MP1; i < L_SUBFR; i++)
        ai_zero[i] = 0;
    for (i = 0; i < M; i++)
        zero[i] = 0;
    Syn_filt(A, ai_zero, h1, L_SUBFR, zero, 0);
    Syn_filt(Ap2, h1, h1, L_SUBFR, zero, 0);

    /* Closed-loop pitch in [T_op - 3, T_op + 3], kept inside [PIT_MIN, PIT_MAX]. */
    t0_min = sub(T_op, 3);
    if (t0_min < PIT_MIN)
        t0_min = PIT_MIN;
    t0_max = add(t0_min, 6);
    if (t0_max > PIT_MAX) {
        t0_max = PIT_MAX;
        t0_min = sub(t0_max, 6);
    }
    T0 = Pitch_cl(exc, xn, h1, t0_min, t0_max);
    Pred_lt(exc, T0, L_SUBFR);
    Convolve(exc, h1, y1, L_SUBFR);
    gain_pit = G_pitch(xn, y1, L_SUBFR);

    /* Codebook target xn2 = xn - gain_pit * y1 (gain Q14). */
    for (i = 0; i < L_SUBFR; i++) {
        L_tmp = L_mult(y1[i], gain_pit);
        L_tmp = L_shl(L_tmp, 1);
        xn2[i] = sub(xn[i], round_fx(L_tmp));
    }

    Cor_h_X(h1, xn2, dn);
    Search_pulses(dn, code, pos);
    Filter_pulses(code, pos, h1, y2);
    gain_code = G_code(xn2, y2);

    /* Excitation and synthesis. */
    for (i = 0; i < L_SUBFR; i++) {
        L_tmp = L_mult(exc[i], gain_pit);
        L_tmp = L_mac(L_tmp, code[i], gain_code);
        L_tmp = L_shl(L_tmp, 1);
        exc[i] = round_fx(L_tmp);
    }
    Syn_filt(A, exc, synth, L_SUBFR, mem_syn, 1);

    /* Filter memories for the next subframe. */
    for (i = 0; i < M; i++) {
        mem_err[i] = sub(speech[L_SUBFR - M + i], synth[L_SUBFR - M + i]);
        L_tmp = L_mult(y1[L_SUBFR - M + i], gain_pit);
        L_tmp = L_mac(L_tmp, y2[L_SUBFR - M + i], gain_code);
        L_tmp = L_shl(L_tmp, 1);
        mem_w0[i] = sub(xn[L_SUBFR - M + i], round_fx(L_tmp));
    }

    prm[0] = T0;
    prm[1] = gain_pit;
    prm[2] = gain_code;
    for (i = 0; i < NB_PULSE; i++)
        prm[3 + i] = pos[i];
}

/* One frame of L_FRAME new samples: writes NB_PRM parameters and L_FRAME synthesised
   samples. */
void Coder_frame(const Word16 new_speech[], Word16 prm[], Word16 synth[])
{
    Word16 r_h[MP1], r_l[MP1], A_t[MP1], rc[4], lsp_new[M], Aq_t[NB_SUBFR * MP1];
    Word16 Ap1[MP1], Ap2[MP1], wsp[L_FRAME];
    Word16 *speech = &old_speech[L_WINDOW - L_FRAME];
    Word16 *exc = &old_exc[PIT_MAX];
    Word16 *wsp_dec = &old_wsp_dec[PIT_MAX_DEC];
    Word16 i, k, T_op, half;

    for (i = 0; i < L_WINDOW - L_FRAME; i++)
        old_speech[i] = old_speech[i + L_FRAME];
    for (i = 0; i < L_FRAME; i++)
        speech[i] = new_speech[i];
    Pre_Process(speech, L_FRAME);

    /* LPC analysis, LSPs, one interpolated filter per subframe. */
    Autocorr(old_speech, M, r_h, r_l, lpc_window);
    Lag_window(M, r_h, r_l);
    Levinson(r_h, r_l, A_t, rc);
    Az_lsp(A_t, lsp_new, lsp_old);
    Int_lpc(lsp_old, lsp_new, Aq_t);

    /* Weighted speech, decimated by 2, and the open-loop lag. */
    for (k = 0; k < NB_SUBFR; k++) {
        Weight_Ai(&Aq_t[k * MP1], gamma1_pow, Ap1);
        Weight_Ai(&Aq_t[k * MP1], gamma2_pow, Ap2);
        Residu(Ap1, &speech[k * L_SUBFR], &wsp[k * L_SUBFR], L_SUBFR);
        Syn_filt(Ap2, &wsp[k * L_SUBFR], &wsp[k * L_SUBFR], L_SUBFR, mem_w, 1);
    }
    for (i = 0; i < L_FRAME_DEC; i++) {
        half = shr(wsp[2 * i], 1);
        wsp_dec[i] = add(half, shr(wsp[2 * i + 1], 1));
    }
    T_op = Pitch_ol(wsp_dec, PIT_MIN_DEC, PIT_MAX_DEC, L_FRAME_DEC);
    T_op = shl(T_op, 1);
    prm[0] = T_op;

    for (k = 0; k < NB_SUBFR; k++)
        Coder_subframe(&Aq_t[k * MP1], &speech[k * L_SUBFR], &exc[k * L_SUBFR], T_op,
                       &synth[k * L_SUBFR], &prm[1 + k * PRM_SUBFR]);

    /* Keep the past for the next frame. */
    for (i = 0; i < PIT_MAX; i++)
        old_exc[i] = old_exc[i + L_FRAME];
    for (i = 0; i < PIT_MAX_DEC; i++)
        old_wsp_dec[i] = old_wsp_dec[i + L_FRAME_DEC];
    for (i = 0; i < M; i++)
        lsp_old[i] = lsp_new[i];
}

/* Energy of v >> 2 (so that a frame does not saturate), then >> 4 for printing. */
static Word32 energy(const Word16 v[], int n)
{
    Word32 s = 0;
    Word16 t;
    int i;
    for (i = 0; i < n; i++) {
        t = shr(v[i], 2);
        s = L_mac(s, t, t);
    }
    return L_shr(s, 4);
}

int main(void)
{
    Word16 new_speech[L_FRAME], synth[L_FRAME], prm[NB_PRM], error[L_FRAME];
    const Word16 *speech = &old_speech[L_WINDOW - L_FRAME];
    Word32 e_sig, e_err;
    int frame, i, k;

    coder_reset();
    for (frame = 0; frame < NFRAMES; frame++) {
        gen_speech(new_speech, L_FRAME);
        Coder_frame(new_speech, prm, synth);

        put_line(prm[0]);
        for (k = 0; k < NB_SUBFR; k++) {
            put_line(prm[1 + k * PRM_SUBFR]);
            put_line(prm[2 + k * PRM_SUBFR]);
            put_line(prm[3 + k * PRM_SUBFR]);
            put_line(checksum16(&prm[4 + k * PRM_SUBFR], NB_PULSE));
        }
        put_line(checksum16(synth, L_FRAME));

        for (i = 0; i < L_FRAME; i++)
            error[i] = sub(speech[i], synth[i]);
        e_sig = energy(speech, L_FRAME);
        e_err = energy(error, L_FRAME);
        put_line(e_sig);
        put_line(e_err);
        put_line(e_err == 0 ? 99 : norm_l(e_err) - norm_l(e_sig));
    }
    return 0;
}
