/* Reversi's learned pattern evaluation (reversi_patterns.c), as the Reversi kernel (reversi.c) calls it. */
#ifndef GR_REVERSI_PATTERNS_H
#define GR_REVERSI_PATTERNS_H

#include <stdint.h>

/* The weights' sum for ``me`` to move over ``weights`` (the whole table), in 1/SCALE discs. */
int32_t gr_reversi_pattern_sum(uint64_t me, uint64_t opp, const int16_t *weights);
/* The same sum by the portable runs whatever the CPU; which way gr_reversi_pattern_sum takes (1: gathers). */
int32_t gr_reversi_pattern_sum_runs(uint64_t me, uint64_t opp, const int16_t *weights);
int gr_reversi_pattern_path(void);
/* The table of the native search's learned evaluation (kept alive by the caller); whether one is set. */
void gr_reversi_set_weights(const int16_t *weights);
int gr_reversi_has_weights(void);
/* The hand-written estimate ``base`` for ``me`` to move corrected by the search's table, clamped. */
double gr_reversi_learned(uint64_t me, uint64_t opp, double base);

#endif
