/* Viterbi decoding of the rate-1/2, constraint-length-5 convolutional code (generators 23 and
   35 octal): an encoder, a hard-decision add-compare-select kernel with survivor decisions and
   traceback, and a soft-decision ACS with metric normalisation on unsigned short metrics. */
#include "ssalab.h"

#define K 5
#define NSTATES (1 << (K - 1))
#define G0 023
#define G1 035
#define NBITS 200
#define TAIL (K - 1)
#define NSTEPS (NBITS + TAIL)

static unsigned char bits[NBITS], decoded[NBITS];
static unsigned char sym[NSTEPS][2];
static signed char soft[NSTEPS][2];
static unsigned char decision[NSTEPS][NSTATES];

/* Encoder output bits (bit 1: G0, bit 0: G1) for the register value (ns << 1) | j, the branch
   into state ns from its predecessor with lowest bit j. */
static unsigned char branch_bits[NSTATES][2];

static int parity(unsigned int x)
{
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return (int)(x & 1u);
}

void conv_encode(const unsigned char *in, int n, unsigned char out[][2])
{
    unsigned int state = 0;
    int t;
    for (t = 0; t < n + TAIL; t++) {
        unsigned int b = t < n ? in[t] : 0u; /* flush with zeros */
        unsigned int reg = (b << (K - 1)) | state;
        out[t][0] = (unsigned char)parity(reg & G0);
        out[t][1] = (unsigned char)parity(reg & G1);
        state = reg >> 1;
    }
}

void make_branch_table(void)
{
    int ns, j;
    for (ns = 0; ns < NSTATES; ns++)
        for (j = 0; j < 2; j++) {
            unsigned int reg = ((unsigned int)ns << 1) | (unsigned int)j;
            branch_bits[ns][j] = (unsigned char)(parity(reg & G0) * 2 + parity(reg & G1));
        }
}

/* Hard decisions: branch metric = Hamming distance.  Returns the final best metric. */
int viterbi_hard(unsigned char in[][2], int nsteps, unsigned char *out, int nbits)
{
    int metric[NSTATES], next[NSTATES];
    int t, ns, j, s;
    for (s = 0; s < NSTATES; s++)
        metric[s] = s == 0 ? 0 : 1000; /* the encoder starts in state 0 */
    for (t = 0; t < nsteps; t++) {
        for (ns = 0; ns < NSTATES; ns++) {
            int best = 0x7fffffff, bestj = 0;
            for (j = 0; j < 2; j++) {
                unsigned int reg = ((unsigned int)ns << 1) | (unsigned int)j;
                int pred = (int)(reg & (NSTATES - 1));
                int out = branch_bits[ns][j];
                int bm = ((out >> 1) != in[t][0]) + ((out & 1) != in[t][1]);
                int m = metric[pred] + bm;
                if (m < best) {
                    best = m;
                    bestj = j;
                }
            }
            next[ns] = best;
            decision[t][ns] = (unsigned char)bestj;
        }
        for (s = 0; s < NSTATES; s++)
            metric[s] = next[s];
    }
    /* The tail drives the encoder back to state 0: trace back from there. */
    s = 0;
    for (t = nsteps - 1; t >= 0; t--) {
        if (t < nbits)
            out[t] = (unsigned char)(s >> (K - 2));
        s = ((s << 1) | decision[t][s]) & (NSTATES - 1);
    }
    return metric[0];
}

/* Soft decisions in [-7, 7] (negative means bit 1); metric = sum of |expected - received|
   with expected +-7; metrics renormalised each step so they fit in unsigned short. */
int viterbi_soft(signed char in[][2], int nsteps, unsigned char *out, int nbits)
{
    unsigned short metric[NSTATES], next[NSTATES];
    int t, ns, s;
    int renorm_total = 0;
    for (s = 0; s < NSTATES; s++)
        metric[s] = (unsigned short)(s == 0 ? 0 : 500);
    for (t = 0; t < nsteps; t++) {
        unsigned short lowest = 0xffff;
        for (ns = 0; ns < NSTATES; ns++) {
            unsigned int reg0 = (unsigned int)ns << 1, reg1 = reg0 | 1u;
            int b0 = branch_bits[ns][0], b1 = branch_bits[ns][1];
            int e00 = b0 & 2 ? -7 : 7, e01 = b0 & 1 ? -7 : 7;
            int e10 = b1 & 2 ? -7 : 7, e11 = b1 & 1 ? -7 : 7;
            int d0 = e00 - in[t][0], d1 = e01 - in[t][1];
            int d2 = e10 - in[t][0], d3 = e11 - in[t][1];
            int m0 = metric[reg0 & (NSTATES - 1)] + (d0 < 0 ? -d0 : d0) + (d1 < 0 ? -d1 : d1);
            int m1 = metric[reg1 & (NSTATES - 1)] + (d2 < 0 ? -d2 : d2) + (d3 < 0 ? -d3 : d3);
            int take1 = m1 < m0;
            next[ns] = (unsigned short)(take1 ? m1 : m0);
            decision[t][ns] = (unsigned char)take1;
            if (next[ns] < lowest)
                lowest = next[ns];
        }
        for (s = 0; s < NSTATES; s++)
            metric[s] = (unsigned short)(next[s] - lowest);
        renorm_total += lowest;
    }
    s = 0;
    for (t = nsteps - 1; t >= 0; t--) {
        if (t < nbits)
            out[t] = (unsigned char)(s >> (K - 2));
        s = ((s << 1) | decision[t][s]) & (NSTATES - 1);
    }
    return renorm_total + metric[0];
}

static void put_line(int v)
{
    print_int(v);
    print_char('\n');
}

static int count_errors(void)
{
    int i, e = 0;
    for (i = 0; i < NBITS; i++)
        e += decoded[i] != bits[i];
    return e;
}

int main(void)
{
    unsigned int seed = 1999u, h = 0;
    int i, flips = 0;
    for (i = 0; i < NBITS; i++) {
        seed = seed * 1103515245u + 12345u;
        bits[i] = (unsigned char)((seed >> 20) & 1u);
    }
    make_branch_table();
    conv_encode(bits, NBITS, sym);
    for (i = 0; i < NSTEPS; i++)
        h = h * 4u + sym[i][0] * 2u + sym[i][1];
    put_line((int)(h >> 1));
    put_line(viterbi_hard(sym, NSTEPS, decoded, NBITS));
    put_line(count_errors());
    /* Sparse channel errors: one flipped symbol every 23 steps. */
    for (i = 5; i < NSTEPS; i += 23) {
        sym[i][i & 1] ^= 1;
        flips++;
    }
    put_line(flips);
    put_line(viterbi_hard(sym, NSTEPS, decoded, NBITS));
    put_line(count_errors());
    /* Soft channel: +-7 with deterministic noise of up to +-6. */
    for (i = 0; i < NSTEPS; i++) {
        int n0, n1;
        seed = seed * 1103515245u + 12345u;
        n0 = (int)((seed >> 16) % 13u) - 6;
        n1 = (int)((seed >> 24) % 13u) - 6;
        soft[i][0] = (signed char)(((sym[i][0] ^ (i >= 5 && (i - 5) % 23 == 0 && (i & 1) == 0)) ? -7 : 7) + n0 / 2);
        soft[i][1] = (signed char)(((sym[i][1] ^ (i >= 5 && (i - 5) % 23 == 0 && (i & 1) == 1)) ? -7 : 7) + n1 / 2);
    }
    put_line(viterbi_soft(soft, NSTEPS, decoded, NBITS));
    put_line(count_errors());
    return 0;
}
