/* harness.c -- the test harness shared by the codec programs (not a kernel): a synthetic
   speech-like signal, output and checksum helpers.  Everything is integer and deterministic.

   The signal: 20 ms frames (L_FRAME samples) cycling through 8 settings of pitch period,
   voicing gain and noise level.  A voiced frame is the sum of 4 harmonics of the pitch
   frequency (amplitudes 7000, 5000, 3000, 1800, from a quarter-wave sine table) times a gain
   in Q14 (so one frame clips at +-32767), plus noise from a 32-bit LCG; frame 5 is noise only,
   frame 3 is quiet.  The phase accumulator is 32-bit unsigned (wraps modulo 2^32 on purpose),
   so the period in samples is 2^32 / increment ~ the frame's pitch period. */
#include "ssalab.h"
#include "codec.h"

/* sin(pi/2 k/64), k = 0..64, Q15. */
static const Word16 sine_quarter[65] = {
    0, 804, 1608, 2411, 3212, 4011, 4808, 5602, 6393, 7180,
    7962, 8740, 9512, 10279, 11039, 11793, 12540, 13279, 14010, 14733,
    15447, 16151, 16846, 17531, 18205, 18868, 19520, 20160, 20788, 21403,
    22006, 22595, 23170, 23732, 24279, 24812, 25330, 25833, 26320, 26791,
    27246, 27684, 28106, 28511, 28899, 29269, 29622, 29957, 30274, 30572,
    30853, 31114, 31357, 31581, 31786, 31972, 32138, 32286, 32413, 32522,
    32610, 32679, 32729, 32758, 32767,
};

#define HARNESS_SETTINGS 8
static const Word16 harness_period_tab[HARNESS_SETTINGS] = { 57, 62, 66, 40, 95, 120, 33, 74 };
static const Word16 harness_gain_tab[HARNESS_SETTINGS] = {
    14000, 17000, 32767, 1500, 9000, 0, 16000, 11000
};
static const Word16 harness_noise_tab[HARNESS_SETTINGS] = { 300, 200, 500, 60, 1200, 6000, 400, 1000 };
static const Word16 harness_harmonic_amp[4] = { 7000, 5000, 3000, 1800 };

static unsigned int harness_seed = 2024u;
static unsigned int harness_phase = 0u;
static int harness_sample = 0;

/* Pitch period (samples) of the last generated sample's frame. */
int harness_period = 0;

/* sin(2 pi phase / 2^32) in Q15 from the quarter-wave table (256 steps per period). */
static int harness_sine(unsigned int phase)
{
    unsigned int idx = phase >> 24;
    unsigned int pos = idx & 63u;
    switch (idx >> 6) {
    case 0u:
        return sine_quarter[pos];
    case 1u:
        return sine_quarter[64u - pos];
    case 2u:
        return -sine_quarter[pos];
    default:
        return -sine_quarter[64u - pos];
    }
}

/* Appends n samples of the synthetic signal to buf. */
static void gen_speech(Word16 buf[], int n)
{
    int i, k, v, r, f;
    unsigned int inc;
    for (i = 0; i < n; i++) {
        f = (harness_sample / L_FRAME) % HARNESS_SETTINGS;
        harness_period = harness_period_tab[f];
        inc = 4294967295u / (unsigned int)harness_period;
        harness_phase += inc;
        v = 0;
        for (k = 0; k < 4; k++)
            v += (harness_harmonic_amp[k] * harness_sine(harness_phase * (unsigned int)(k + 1))) >> 15;
        v = (v * harness_gain_tab[f]) >> 14; /* |v| <= 16800 * 2 */
        harness_seed = harness_seed * 1664525u + 1013904223u;
        r = (int)(harness_seed >> 17) - 16384; /* [-16384, 16383] */
        v += (r * harness_noise_tab[f]) >> 14;
        if (v > 32767)
            v = 32767;
        if (v < -32768)
            v = -32768;
        buf[i] = (Word16)v;
        harness_sample++;
    }
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

/* Order-sensitive hash of 16-bit values (kept non-negative). */
static int checksum16(const Word16 v[], int n)
{
    unsigned int h = 0u;
    int i;
    for (i = 0; i < n; i++)
        h = h * 31u + ((unsigned int)v[i] & 0xffffu);
    return (int)(h >> 1);
}
