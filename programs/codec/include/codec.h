/* codec.h -- constants and prototypes of the speech-codec kernels in programs/codec/include/.

   A small CELP-style analysis chain in the manner of the GSM EFR / AMR 12.2 encoders, written
   for ssalab with the basic operators of basic_op.c: 8 kHz speech, 20 ms frames of 160
   samples, 4 subframes of 40, LPC order 10, a 240-sample asymmetric analysis window, LSPs in
   the cosine domain (Q15), LPC coefficients in Q12, open-loop pitch lags 20..143.

   Every file here is meant to be #included by a program (one translation unit); the
   prototypes let the files be included in any order. */
#ifndef CODEC_CODEC_H
#define CODEC_CODEC_H

#include "basic_op.h"

#define M 10            /* LPC order */
#define MP1 (M + 1)
#define NC (M / 2)      /* order of the LSP polynomials F1, F2 */
#define L_WINDOW 240    /* LPC analysis window */
#define L_FRAME 160     /* frame */
#define L_FRAME_BY2 80  /* half frame: one open-loop pitch estimate each */
#define L_SUBFR 40      /* subframe */
#define NB_SUBFR 4
#define GRID_POINTS 60  /* cosine grid of the LSP root search */
#define PIT_MIN 20
#define PIT_MAX 143

/* tables.c */
extern const Word16 lpc_window[L_WINDOW];
extern const Word16 lag_h[M];
extern const Word16 lag_l[M];
extern const Word16 lsp_grid[GRID_POINTS + 1];
extern const Word16 inv_sqrt_tab[49];
extern const Word16 gamma1_pow[M];
extern const Word16 gamma2_pow[M];
extern const Word16 lsp_init[M];
extern const Word16 hpf_b[3];
extern const Word16 hpf_a[3];

/* lpc.c */
Word16 Autocorr(const Word16 x[], Word16 m, Word16 r_h[], Word16 r_l[], const Word16 wind[]);
void Lag_window(Word16 m, Word16 r_h[], Word16 r_l[]);
void Levinson(const Word16 Rh[], const Word16 Rl[], Word16 A[], Word16 rc[]);

/* lsp.c */
Word16 Chebps(Word16 x, const Word16 f[], Word16 n);
void Az_lsp(const Word16 a[], Word16 lsp[], const Word16 old_lsp[]);
void Get_lsp_pol(const Word16 *lsp, Word32 *f);
void Lsp_Az(const Word16 lsp[], Word16 a[]);
void Int_lpc(const Word16 lsp_old[], const Word16 lsp_new[], Word16 Az[]);

/* filters.c */
void Weight_Ai(const Word16 a[], const Word16 fac[], Word16 a_exp[]);
void Residu(const Word16 a[], const Word16 x[], Word16 y[], Word16 lg);
void Syn_filt(const Word16 a[], const Word16 x[], Word16 y[], Word16 lg, Word16 mem[],
              Word16 update);
void Convolve(const Word16 x[], const Word16 h[], Word16 y[], Word16 L);
void Pre_Process(Word16 signal[], Word16 lg);

/* pitch.c */
Word32 Inv_sqrt(Word32 L_x);
Word16 Lag_max(const Word16 sig[], Word16 L_frame, Word16 lag_max, Word16 lag_min,
               Word16 *cor_max);
Word16 Pitch_ol(const Word16 signal[], Word16 pit_min, Word16 pit_max, Word16 L_frame);
void Pred_lt(Word16 exc[], Word16 T0, Word16 L_subfr);
void Norm_Corr(const Word16 exc[], const Word16 xn[], const Word16 h[], Word16 t_min,
               Word16 t_max, Word16 corr_norm[]);
Word16 Pitch_cl(const Word16 exc[], const Word16 xn[], const Word16 h[], Word16 t0_min,
                Word16 t0_max);
Word16 G_pitch(const Word16 xn[], const Word16 y1[], Word16 L_subfr);

/* cbsearch.c */
#define NB_TRACK 5      /* pulse positions i = t (mod 5), t = 0..4 */
#define NB_PULSE 10     /* two pulses per track */
void Cor_h_X(const Word16 h[], const Word16 x[], Word16 dn[]);
void Search_pulses(const Word16 dn[], Word16 code[], Word16 pos[]);
void Filter_pulses(const Word16 code[], const Word16 pos[], const Word16 h[], Word16 y[]);
Word16 G_code(const Word16 xn2[], const Word16 y2[]);

#endif /* CODEC_CODEC_H */
