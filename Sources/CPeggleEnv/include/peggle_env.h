/*
 * peggle_env.h: the Peggle Gym environment as a C library (libpeggle_env.so), ABI version 1.
 *
 * The library runs `peggle serve`'s session inside the caller's process (docs/native.md). A
 * session holds at most one vector of environments and its snapshots, within a memory budget.
 * Every request `peggle serve` takes is taken here as the same JSON line, decoded by the same
 * code (peggle_request), so options, defaults, ranges and messages are the server's. The hot
 * path (peggle_reset, peggle_step) carries no JSON: it reads actions from, and writes
 * observations, rewards, flags and infos into, buffers the caller owns (peggle_bind).
 *
 * Every function returns: none traps, aborts or prints. A status is PEGGLE_OK (0) or the reason a
 * call was refused; peggle_error gives its message. A refused call changes nothing. A session is
 * named by a handle, a small positive int32 (so a foreign-function caller passes it as a plain
 * int) that is never reused: a closed or unknown handle is refused with PEGGLE_CLOSED, and a
 * handle made before a fork() is refused in the child with PEGGLE_WRONG_PROCESS (the parent keeps
 * it). Calls on one handle from several threads take turns; different handles run in parallel.
 *
 * Units and meanings are those of docs/protocol.md and docs/environment.md.
 */
#ifndef PEGGLE_ENV_H
#define PEGGLE_ENV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PEGGLE_ABI_VERSION 1

/* Why a call was refused. 1 to 11 are the serve protocol's error codes, in its order
 * (peggle_status_name gives their wire names: "bad_json" ... "internal"). */
typedef enum peggle_status {
    PEGGLE_OK = 0,
    PEGGLE_BAD_JSON,
    PEGGLE_UNKNOWN_COMMAND,
    PEGGLE_BAD_REQUEST,
    PEGGLE_LEVEL_ERROR,
    PEGGLE_NOT_MADE,
    PEGGLE_NOT_RESET,
    PEGGLE_BAD_ACTION,
    PEGGLE_EPISODE_OVER,
    PEGGLE_NO_SNAPSHOT,
    PEGGLE_MEMORY_BUDGET,
    PEGGLE_INTERNAL,
    /* The library's own: a handle that was closed or never opened ("closed"), */
    PEGGLE_CLOSED,
    /* a handle opened in the parent of this forked process ("wrong_process"), */
    PEGGLE_WRONG_PROCESS,
    /* buffers that are missing or do not fit the environments made ("bad_buffers"). */
    PEGGLE_BAD_BUFFERS,
    PEGGLE_STATUS_COUNT
} peggle_status;

/* One environment's info as whole numbers: row i of peggle_buffers.info holds
 * PEGGLE_INFO_INTS of them. A row without an info (PEGGLE_I_PRESENT 0) is all zeros, and so is
 * its info_real row. */
typedef enum peggle_info_int {
    /* 0: no info (an environment a masked reset left alone), 1: a step's (a shot was taken),
     * 2: a reset's (a reset, or a next_step autoreset in place of a shot). */
    PEGGLE_I_PRESENT = 0,
    PEGGLE_I_TERMINATED,
    PEGGLE_I_TRUNCATED,
    /* same_step autoreset: this environment's episode ended on this step, and row i of
     * final_obs, final_info and final_info_real hold where it ended. */
    PEGGLE_I_HAS_FINAL,
    PEGGLE_I_LEVEL,
    PEGGLE_I_LEVEL_SEED,      /* procedural levels only (0 ... 2^63 - 1), else -1 */
    /* Procedural levels only: the seed the generator made the level from, a uint64 as its bits
     * (a tier screen's candidates use all 64); peggle_level_name names the level. Else 0. */
    PEGGLE_I_GENERATOR_SEED,
    PEGGLE_I_SCORE,
    PEGGLE_I_BALLS_LEFT,
    PEGGLE_I_ORANGE_LEFT,
    PEGGLE_I_SHOTS,
    PEGGLE_I_STATUS,          /* 0 playing, 1 won, 2 lost */
    PEGGLE_I_GAME_SEED,       /* a reset's info only (0 ... 2^63 - 1), else -1 */
    /* A step's info only (PEGGLE_I_PRESENT 1), else 0: */
    PEGGLE_I_PEGS_HIT,
    PEGGLE_I_HITS_BLUE,
    PEGGLE_I_HITS_ORANGE,
    PEGGLE_I_HITS_GREEN,
    PEGGLE_I_HITS_PURPLE,
    PEGGLE_I_HITS_ZOMBIE,
    PEGGLE_I_HITS_CONFUSEMENT,
    PEGGLE_I_POINTS,
    PEGGLE_I_FREE_BALLS,
    PEGGLE_I_CAUGHT,
    PEGGLE_I_TRAJECTORY,      /* 1: the shot recorded its ball paths (peggle_trajectories) */
    PEGGLE_INFO_INTS
} peggle_info_int;

/* One environment's info as reals: row i of peggle_buffers.info_real. */
typedef enum peggle_info_real {
    /* The reward, as the float32 the environment computed, read back the way a JSON reader reads
     * `peggle serve`'s shortest text of it (so both give one double). */
    PEGGLE_R_REWARD = 0,
    PEGGLE_R_ANGLE,           /* radians; a step's info only, else 0 */
    PEGGLE_R_FIRED_ANGLE,     /* radians; a step's info only, else 0 */
    PEGGLE_INFO_REALS
} peggle_info_real;

/* The caller's buffers, bound once after `make` (peggle_bind) and used by every later
 * peggle_reset and peggle_step until the next bind, make or close. The caller keeps them alive
 * and does not touch them during a call. Row-major, one row per environment. */
typedef struct peggle_buffers {
    int64_t num_envs;         /* rows: must be the environments made */
    int64_t obs_size;         /* floats per observation row: must be the observation's size */
    double *actions;          /* [num_envs]: read by peggle_step */
    uint8_t *reset_mask;      /* [num_envs]: read by peggle_reset when asked (nonzero: reset it) */
    float *obs;               /* [num_envs * obs_size] */
    float *final_obs;         /* [num_envs * obs_size]; rows without a final observation are zeros */
    int64_t *info;            /* [num_envs * PEGGLE_INFO_INTS] */
    double *info_real;        /* [num_envs * PEGGLE_INFO_REALS] */
    int64_t *final_info;      /* [num_envs * PEGGLE_INFO_INTS]: the ended episodes' last infos */
    double *final_info_real;  /* [num_envs * PEGGLE_INFO_REALS] */
} peggle_buffers;

/* PEGGLE_ABI_VERSION of the library loaded (a caller compares it with the header's). */
int32_t peggle_abi_version(void);
/* The engine's name and version, "peggle-gym 0.1.0" (as `peggle serve`'s hello). Static. */
const char *peggle_engine(void);
/* A status's name ("ok", "bad_request", ..., "bad_buffers"); NULL past the last. Static. */
const char *peggle_status_name(int32_t status);

/* A new, empty session that may hold `memory_budget` bytes (0: the server's default, 1 GiB).
 * Returns its handle (> 0), or 0 when memory_budget is negative (or 2^31 - 1 sessions were opened). */
int32_t peggle_open(int64_t memory_budget);
/* Frees the session. PEGGLE_CLOSED if it was closed already (a second close is harmless). */
int32_t peggle_close(int32_t env);
/* A new session holding a copy of env's environments as they are now (games, generators,
 * autoreset state, the latest shots), without its snapshots or buffers: it steps on its own.
 * Returns its handle, or 0 (peggle_error(env, ...) says why: not made, closed). */
int32_t peggle_copy(int32_t env);

/* One request line of the serve protocol (docs/protocol.md), `length` bytes of UTF-8 without a
 * newline. The reply line and its binary frame (obs_encoding f32) are kept until the next call
 * on env; their sizes in bytes go to *line_length and *frame_length, and peggle_reply copies
 * them. Returns PEGGLE_OK when the reply says "ok": true, else the reply's error code (the line
 * holds the message). A `make` unbinds the buffers. */
int32_t peggle_request(int32_t env, const char *line, int64_t length, int64_t *line_length, int64_t *frame_length);
/* Copies the last reply's line into `line` and its frame into `frame` (either may be NULL);
 * the sizes are peggle_request's. */
int32_t peggle_reply(int32_t env, char *line, uint8_t *frame);

/* Binds the caller's buffers to the environments made (all fields required). */
int32_t peggle_bind(int32_t env, const peggle_buffers *buffers);
/* Resets every environment (or, when `masked` is nonzero, those whose reset_mask entry is
 * nonzero), as `reset` does: seed -1 continues each environment's generator, else environment i
 * is reset with seed + i (0 <= seed < 2^63); level -1 lets each choose, else that level index.
 * Writes obs, info and info_real (rows a mask left alone get PEGGLE_I_PRESENT 0). */
int32_t peggle_reset(int32_t env, int64_t seed, int64_t level, int32_t masked);
/* Steps every environment with its action from the actions buffer, as `step` does. Writes obs,
 * info and info_real, and when an episode ended under same_step autoreset final_obs,
 * final_info and final_info_real too (its row's PEGGLE_I_HAS_FINAL is 1). */
int32_t peggle_step(int32_t env);

/* The name of the procedural level made from `generator_seed` (PEGGLE_I_GENERATOR_SEED's bits), as
 * infos name it ("Bricks 106 (easy)"), UTF-8 without a terminating zero, into `out` (up to
 * `capacity` bytes). Returns its whole length in bytes (call again with more room if it is
 * larger than capacity), or -1 (peggle_error says why). */
int64_t peggle_level_name(int32_t env, int64_t generator_seed, char *out, int64_t capacity);
/* The latest step's ball paths (final: 1 for the ended episodes' final infos) as JSON: a list
 * with one entry per environment, null or a list of paths, each a list of [x, y] points (board
 * units, to 0.01), exactly as `peggle serve` writes an info's "trajectory". Lengths as
 * peggle_level_name. */
int64_t peggle_trajectories(int32_t env, int32_t final, char *out, int64_t capacity);

/* The message of the latest refused call on env (0: peggle_open's), UTF-8 without a terminating
 * zero, into `out`; returns its whole length in bytes (0 if none). */
int64_t peggle_error(int32_t env, char *out, int64_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* PEGGLE_ENV_H */
