/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenSHMEM-dialect program in plain C (#include <shmem.h>): teams.
 *   - SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED queries and translation;
 *   - shmem_team_split_strided: the even PEs and the odd PEs (each PE is in exactly one),
 *     translate_pe both ways, shmem_team_get_config, SHMEM_TEAM_INVALID for non-members;
 *   - shmem_team_split_2d with xrange 2: rows and columns of a 2 x ceil(n/2) grid;
 *   - data through the teams: every PE puts a value to its successor inside its row team
 *     (PE numbers translated to the world team), after a team sync, and checks what arrived;
 *   - shmem_team_destroy of every split team (and of SHMEM_TEAM_INVALID: a no-op).
 */
#include <shmem.h>

#include "compat_check.h"

static int value_for(int from_world_pe, int salt) { return 7000 + from_world_pe * 31 + salt * 1009; }

/* Expected team facts of a strided team (start, stride, size) of the world. */
static void check_strided(shmem_team_t team, int me, int start, int stride, int size, const char* what) {
  const int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
  if (!member) {
    COMPAT_CHECK(team == SHMEM_TEAM_INVALID, "%s: PE %d is not a member but got team %d", what, me, (int)team);
    return;
  }
  COMPAT_CHECK(team != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
  if (team == SHMEM_TEAM_INVALID) return;
  COMPAT_CHECK(shmem_team_my_pe(team) == (me - start) / stride, "%s: my_pe %d, expected %d", what,
               shmem_team_my_pe(team), (me - start) / stride);
  COMPAT_CHECK(shmem_team_n_pes(team) == size, "%s: n_pes %d, expected %d", what, shmem_team_n_pes(team), size);
  for (int i = 0; i < size; ++i) {
    COMPAT_CHECK(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD) == start + i * stride,
                 "%s: team PE %d -> world %d, expected %d", what, i, shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD),
                 start + i * stride);
  }
  COMPAT_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, team) == (me - start) / stride,
               "%s: world PE %d -> team %d", what, me, shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, team));
  COMPAT_CHECK(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD) == -1, "%s: out-of-range team PE translated",
               what);
}

int main(void) {
  compat_skip_without_gpus("compat team split (OpenSHMEM dialect)");
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  compat_pe = me;
  char name[SHMEM_MAX_NAME_LEN];
  int major = 0, minor = 0;
  shmem_info_get_name(name);
  shmem_info_get_version(&major, &minor);
  COMPAT_CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "version %d.%d", major, minor);

  /* Predefined teams. */
  COMPAT_CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "world my_pe %d", shmem_team_my_pe(SHMEM_TEAM_WORLD));
  COMPAT_CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "world n_pes %d", shmem_team_n_pes(SHMEM_TEAM_WORLD));
  const int shared_me = shmem_team_my_pe(SHMEM_TEAM_SHARED), shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  COMPAT_CHECK(shared_n >= 1 && shared_me >= 0 && shared_me < shared_n, "shared team: PE %d of %d", shared_me,
               shared_n);
  COMPAT_CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD) == me,
               "shared team PE %d -> world %d", shared_me,
               shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD));
  COMPAT_CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "my_pe(SHMEM_TEAM_INVALID) %d",
               shmem_team_my_pe(SHMEM_TEAM_INVALID));
  COMPAT_CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "n_pes(SHMEM_TEAM_INVALID) %d",
               shmem_team_n_pes(SHMEM_TEAM_INVALID));

  /* Strided splits: even and odd PEs. Every PE calls both (collective over the parent). */
  shmem_team_config_t cfg;
  cfg.num_contexts = 0;
  shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
  const int n_even = (npes + 1) / 2, n_odd = npes / 2;
  const int rc_even = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_even, &cfg, 0, &even);
  const int rc_odd = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n_odd, &cfg, 0, &odd);
  COMPAT_CHECK(rc_even == 0 && rc_odd == 0, "split_strided returned %d / %d", rc_even, rc_odd);
  check_strided(even, me, 0, 2, n_even, "even team");
  check_strided(odd, me, 1, 2, n_odd, "odd team");
  shmem_team_t mine = (me % 2) ? odd : even;
  if (mine != SHMEM_TEAM_INVALID) {
    shmem_team_config_t got;
    got.num_contexts = -1;
    COMPAT_CHECK(shmem_team_get_config(mine, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "team_get_config failed");
    COMPAT_CHECK(got.num_contexts == 0, "num_contexts %d", got.num_contexts);
    /* A split of a split: the first two members of my parity team. */
    shmem_team_t pair = SHMEM_TEAM_INVALID;
    const int pair_n = shmem_team_n_pes(mine) < 2 ? shmem_team_n_pes(mine) : 2;
    COMPAT_CHECK(shmem_team_split_strided(mine, 0, 1, pair_n, NULL, 0, &pair) == 0, "nested split failed");
    if (shmem_team_my_pe(mine) < pair_n) {
      COMPAT_CHECK(pair != SHMEM_TEAM_INVALID && shmem_team_n_pes(pair) == pair_n, "nested team: n_pes %d",
                   pair == SHMEM_TEAM_INVALID ? -2 : shmem_team_n_pes(pair));
      if (pair != SHMEM_TEAM_INVALID)
        COMPAT_CHECK(shmem_team_translate_pe(pair, shmem_team_my_pe(pair), SHMEM_TEAM_WORLD) == me,
                     "nested team translates to world %d",
                     shmem_team_translate_pe(pair, shmem_team_my_pe(pair), SHMEM_TEAM_WORLD));
    } else {
      COMPAT_CHECK(pair == SHMEM_TEAM_INVALID, "non-member got nested team %d", (int)pair);
    }
    shmem_team_destroy(pair);
  }

  /* 2D split: x = me % 2 (within a row), y = me / 2. */
  shmem_team_t xteam = SHMEM_TEAM_INVALID, yteam = SHMEM_TEAM_INVALID;
  const int rc2d = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &cfg, 0, &xteam, &cfg, 0, &yteam);
  COMPAT_CHECK(rc2d == 0, "split_2d returned %d", rc2d);
  const int x = me % 2, y = me / 2;
  const int row_n = (y * 2 + 2 <= npes) ? 2 : npes - y * 2;
  const int col_n = (npes - x + 1) / 2;
  COMPAT_CHECK(xteam != SHMEM_TEAM_INVALID && yteam != SHMEM_TEAM_INVALID, "split_2d left PE %d without a team", me);
  if (xteam != SHMEM_TEAM_INVALID && yteam != SHMEM_TEAM_INVALID) {
    COMPAT_CHECK(shmem_team_my_pe(xteam) == x && shmem_team_n_pes(xteam) == row_n, "x team: PE %d of %d",
                 shmem_team_my_pe(xteam), shmem_team_n_pes(xteam));
    COMPAT_CHECK(shmem_team_my_pe(yteam) == y && shmem_team_n_pes(yteam) == col_n, "y team: PE %d of %d",
                 shmem_team_my_pe(yteam), shmem_team_n_pes(yteam));
    COMPAT_CHECK(shmem_team_translate_pe(xteam, 0, SHMEM_TEAM_WORLD) == y * 2, "x team PE 0 -> world %d",
                 shmem_team_translate_pe(xteam, 0, SHMEM_TEAM_WORLD));
    COMPAT_CHECK(shmem_team_translate_pe(yteam, 0, SHMEM_TEAM_WORLD) == x, "y team PE 0 -> world %d",
                 shmem_team_translate_pe(yteam, 0, SHMEM_TEAM_WORLD));
    COMPAT_CHECK(shmem_team_translate_pe(xteam, x, yteam) == y, "x team PE %d -> y team %d", x,
                 shmem_team_translate_pe(xteam, x, yteam));
  }

  /* Data through the row team: each PE puts to its successor in the row (world numbering). */
  int* box = (int*)shmem_malloc(sizeof(int));
  COMPAT_CHECK(box != NULL, "shmem_malloc failed");
  for (int salt = 1; salt <= 3 && box && xteam != SHMEM_TEAM_INVALID; ++salt) {
    const int poison = -1;
    shmem_int_p(box, poison, me);
    shmem_team_sync(xteam); /* every member poisoned its box */
    const int n = shmem_team_n_pes(xteam), succ = (shmem_team_my_pe(xteam) + 1) % n;
    const int pred = (shmem_team_my_pe(xteam) + n - 1) % n;
    shmem_int_p(box, value_for(me, salt), shmem_team_translate_pe(xteam, succ, SHMEM_TEAM_WORLD));
    shmem_quiet();
    shmem_team_sync(xteam); /* every member's put is complete */
    const int from = shmem_team_translate_pe(xteam, pred, SHMEM_TEAM_WORLD);
    const int got = shmem_int_g(box, me);
    COMPAT_CHECK(got == value_for(from, salt), "salt %d: box holds %d, expected %d from world PE %d", salt, got,
                 value_for(from, salt), from);
    shmem_team_sync(xteam); /* nobody overwrites a box before its owner read it */
  }
  shmem_barrier_all();

  shmem_team_destroy(xteam);
  shmem_team_destroy(yteam);
  shmem_team_destroy(even);
  shmem_team_destroy(odd);
  shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
  shmem_free(box);
  const int rc = compat_summary("compat team split (OpenSHMEM dialect)");
  shmem_finalize();
  return rc;
}
