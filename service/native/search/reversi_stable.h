/* Reversi's stable discs on 8x8 (reversi_stable.c), as the Reversi kernel (reversi.c) cuts its proofs with them. */
#ifndef GR_REVERSI_STABLE_H
#define GR_REVERSI_STABLE_H

#include <stdint.h>

/* A subset of me's discs that no sequence of moves can turn (me and opp: 8x8 bitboards, a1 = bit 0). */
uint64_t gr_reversi_stable(uint64_t me, uint64_t opp);

#endif
