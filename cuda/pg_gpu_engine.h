/*
 * pg_gpu_engine.h — the only door between PostgreSQL-facing code (src/) and the
 * GPU engine (cuda/).
 *
 * Plain C, POD structs and opaque handles, no PostgreSQL headers.  The interface is
 * message-shaped: a task description and buffers go in, a result struct comes out,
 * so that a later GPU service process could run the same engine behind a queue.
 *
 * Errors never cross this boundary as exceptions: every call returns a
 * pg_gpu_status and fills a pg_gpu_error; the caller decides between a CPU
 * fallback and an ereport.
 */
#ifndef PG_GPU_ENGINE_H
#define PG_GPU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "pg_gpu_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pg_gpu_status
{
	PG_GPU_OK = 0,
	PG_GPU_NOT_COMPILED,		/* built without nvcc */
	PG_GPU_NO_DEVICE,			/* no driver or no usable GPU */
	PG_GPU_OUT_OF_MEMORY,		/* device or pinned memory exhausted / over limit */
	PG_GPU_CUDA_ERROR,			/* any other CUDA runtime failure */
	PG_GPU_BAD_PAGE,			/* kernel met a page/tuple it cannot decode */
	PG_GPU_EXPR_ERROR,			/* an expression would raise an error (division
								 * by zero, overflow): re-run on the CPU */
	PG_GPU_TOASTED,				/* a text value the kernels read is compressed
								 * or out of line: re-run on the CPU */
	PG_GPU_UNORDERED,			/* sort keys equal in the prefix the GPU sorts
								 * (sort.cuh) and longer: re-run on the CPU */
	PG_GPU_INVALID_TASK,		/* the task description is inconsistent */
	PG_GPU_HOST_OUT_OF_MEMORY,	/* the GPU service's thread ran out of host
								 * memory (std::bad_alloc): the task failed */
	PG_GPU_CANCELLED,			/* the caller's cancel callback said so
								 * (pg_gpu_engine_set_cancel): the call gave
								 * up, its handle may only be ended */
	PG_GPU_BUSY					/* every task channel of the GPU service was in
								 * use (pg_gpu.service_tasks): nothing ran */
} pg_gpu_status;

typedef struct pg_gpu_error
{
	pg_gpu_status status;
	char		message[256];
} pg_gpu_error;

/* ---- runtime ---------------------------------------------------------- */

/* Whether the engine was compiled with CUDA at all. */
int			pg_gpu_engine_compiled(void);

/*
 * Start CUDA in this process (idempotent).  Costs ~0.4 s the first time; must never
 * run in the postmaster.  Returns PG_GPU_OK or the reason there is no GPU.
 */
pg_gpu_status pg_gpu_engine_init(pg_gpu_error *err);
int			pg_gpu_engine_initialized(void);

/*
 * The same start-up on a thread of the engine's, for a caller that must keep
 * answering interrupts meanwhile: starts it if it has not started; then 0 while
 * it runs, 1 once CUDA is up, -1 if there is no GPU (pg_gpu_engine_init then
 * says why).
 */
int			pg_gpu_engine_init_async(void);

/*
 * Cancel.  Where the engine waits for the GPU or runs a long loop on the CPU (the
 * emulation's pages, sorts and key sets), it asks fn between slices of at most a
 * few milliseconds; when fn answers non-zero the call returns PG_GPU_CANCELLED
 * with its work abandoned, and the handle may only be ended (its end waits for
 * GPU work in flight).  Per thread: only calls made on the thread that set fn
 * ask it (NULL: never cancelled).  fn runs on that thread and must only read
 * flags (a backend's: a pending query cancel or termination).
 */
typedef int (*pg_gpu_cancel_fn) (void);
void		pg_gpu_engine_set_cancel(pg_gpu_cancel_fn fn);

/* Cap on the engine's own device allocations, bytes (0 = whole device). */
void		pg_gpu_engine_set_memory_limit(uint64_t bytes);

/*
 * The engine's device memory in this process: bytes its tasks hold now, and
 * bytes its pool keeps for the next ones (*cached).
 */
uint64_t	pg_gpu_engine_memory(uint64_t *cached);

/*
 * 0 when this process's CUDA context is broken for good (a sticky error: every
 * later call fails; only a new process gets a working one); 1 otherwise.
 */
int			pg_gpu_engine_healthy(void);

typedef struct pg_gpu_device_info
{
	int			ordinal;
	char		name[128];
	int			cc_major;
	int			cc_minor;
	int			multiprocessors;
	uint64_t	total_memory;
	uint64_t	free_memory;
	int			can_map_host_memory;
} pg_gpu_device_info;

/* Fills up to max entries; returns the device count or -1 with err set. */
int			pg_gpu_engine_devices(pg_gpu_device_info *out, int max, pg_gpu_error *err);

/* The current device's free memory, once the engine has started; false if unknown. */
int			pg_gpu_engine_free_memory(uint64_t *free_bytes);

/*
 * Register [base, base+len) (e.g. the shared buffer pool) as mapped pinned memory so
 * kernels read it in place over PCIe.  *device_base receives the device address of
 * base.  Registration is per process and lasts until process exit.
 */
pg_gpu_status pg_gpu_engine_register_host(void *base, uint64_t len,
										  uint64_t *device_base, pg_gpu_error *err);

/*
 * The same, done once per process by a background thread.  Returns the state:
 * 1 running, 2 done, -1 failed.  pg_gpu_engine_registration reads the state and,
 * when done, the device address (when failed, the error).
 */
int			pg_gpu_engine_register_host_async(void *base, uint64_t len);
int			pg_gpu_engine_registration(uint64_t *device_base, pg_gpu_error *err);

/* ---- GpuAgg: aggregation over heap pages -------------------------------- */

#define PG_GPU_MAX_COLS 16			/* attributes deformed per tuple */
#define PG_GPU_MAX_AGG_COLS 16		/* aggregate inputs (one state each) */
#define PG_GPU_MAX_KEYS 4			/* GROUP BY keys */
#define PG_GPU_MAX_PROG 160			/* bytecode instructions, all programs */
#define PG_GPU_MAX_CONSTS 64
#define PG_GPU_MAX_STRPOOL 1024		/* bytes of text constants */
#define PG_GPU_MAX_STACK 16
#define PG_GPU_MAX_DEFORM_ATTS 256
#define PG_GPU_AGG_SLOTS 3		/* chunks in flight */
#define PG_GPU_MAX_SETS 8			/* key sets a task probes (IN_SET) */

/* Value types the kernels decode and compute with. */
typedef enum pg_gpu_coltype
{
	PG_GPU_INT2 = 1,
	PG_GPU_INT4,
	PG_GPU_INT8,
	PG_GPU_FLOAT4,
	PG_GPU_FLOAT8,
	PG_GPU_ANY,					/* any type: only NULL-ness is read */
	PG_GPU_DATE,				/* int32 days */
	PG_GPU_TIMESTAMP,			/* int64 microseconds (timestamp, timestamptz) */
	PG_GPU_BOOL,				/* expression results only */
	PG_GPU_TEXT,				/* text, varchar: bytes compared as bytes
								 * (deterministic collations; ordering only
								 * where the collation is byte order) */
	PG_GPU_BPCHAR,				/* bpchar: the same without trailing blanks */
	PG_GPU_NUMERIC,				/* numeric: its varlena bytes; GpuSort keys only */
	PG_GPU_DECIMAL				/* numeric as an exact scaled integer: the
								 * value times 10^scale in 128 bits (int128,
								 * two's complement, pval bits + hi), scale
								 * fixed per column and per program
								 * (pg_gpu_agg_column.scale,
								 * pg_gpu_expr.scale); pval len holds the
								 * value's own display scale (dscale), which
								 * PostgreSQL prints (docs/SEMANTICS.md 21,
								 * 22) */
} pg_gpu_coltype;

/*
 * DECIMAL values the kernels keep: |value * 10^scale| below 2^PG_GPU_DEC_BITS,
 * so that any 2^36 of them sum exactly in 128 bits.  A column value, constant
 * or intermediate beyond it (or NaN, +-Infinity) makes the tuple an expression
 * error: the query re-runs on the CPU.  Scales above PG_GPU_DEC_MAX_SCALE are
 * not compiled.
 */
#define PG_GPU_DEC_BITS 90
#define PG_GPU_DEC_MAX_SCALE 24
/* The scale at which typmod-less numeric columns are read (larger dscales: CPU). */
#define PG_GPU_DEC_FREE_SCALE 8

/*
 * Expression bytecode: a stack machine over (64-bit value, null) pairs.  Integers
 * and dates are int64, floats are double (float4 operations round to float at
 * every step, as float4 arithmetic does), text is the address and length of its
 * bytes (a text constant's word is offset << 32 | length in the task's strpool).  Compiled once per query from
 * PostgreSQL's expression trees (src/expr/expr_compile.cpp); errors PostgreSQL would
 * raise (division by zero, overflow) set a flag and the query is re-run on the
 * CPU, which raises PostgreSQL's own error.
 */
typedef enum pg_gpu_opcode
{
	PG_GPU_OP_COL = 1,			/* a: deformed column index */
	PG_GPU_OP_CONST,			/* a: constant index */
	PG_GPU_OP_ADD,				/* type: result type, operands already of it */
	PG_GPU_OP_SUB,
	PG_GPU_OP_MUL,
	PG_GPU_OP_DIV,
	PG_GPU_OP_MOD,
	PG_GPU_OP_NEG,
	PG_GPU_OP_CAST,				/* type: target, a: source type (INT8 from
								 * DECIMAL: the scaled integer itself, a
								 * numeric GROUP BY key's word; beyond
								 * int64: an expression error) */
	PG_GPU_OP_CMP,				/* type: operand type, a: PG_GPU_CMP_* */
	PG_GPU_OP_AND_BEGIN,		/* push TRUE accumulator */
	PG_GPU_OP_AND_STEP,			/* fold top into accumulator; FALSE (b=1: or
								 * NULL, as in a qual list): jump to a */
	PG_GPU_OP_OR_BEGIN,			/* push FALSE accumulator */
	PG_GPU_OP_OR_STEP,			/* fold top into accumulator; TRUE: jump to a */
	PG_GPU_OP_NOT,
	PG_GPU_OP_ISNULL,
	PG_GPU_OP_ISNOTNULL,
	PG_GPU_OP_IN,				/* type: operand type, constants a .. a+b-1 */
	PG_GPU_OP_IN_SET,			/* type: operand type, a: key set (task->sets);
								 * b = 0: x IN (set), three-valued (docs/SEMANTICS.md 17);
								 * b = 1: a join's match, NULL never matches */
	PG_GPU_OP_SET_MULT,			/* a: key set; the number of the set's keys
								 * equal to x (int8; 0 when none or NULL) */
	PG_GPU_OP_SET_ORD,			/* a: key set; 1 + the index of the key equal
								 * to x (int8), NULL when none or x is NULL */
	PG_GPU_OP_SET_VAL,			/* a: key set, b: one of its payload columns;
								 * the column's word in the row of the key
								 * equal to x, NULL when none, x is NULL or
								 * the value is (a star join's dimension
								 * column: pg_gpu_keyset_payload) */
	PG_GPU_OP_RESCALE,			/* type DECIMAL: the value b places below the
								 * top (0: the top) times 10^a, its dscale
								 * unchanged (operands of + - and comparisons
								 * are brought to one scale) */
	/*
	 * Lazy evaluation (CASE, COALESCE): jump targets are absolute indexes in
	 * prog, forward, within the program.
	 */
	PG_GPU_OP_JUMP,				/* jump to a */
	PG_GPU_OP_JUMP_UNLESS,		/* pop a bool; FALSE or NULL: jump to a */
	PG_GPU_OP_JUMP_NOTNULL,		/* top not NULL: jump to a (kept); else pop it */
	PG_GPU_OP_PICK,				/* push a copy of stack slot a (from the bottom) */
	PG_GPU_OP_NIP,				/* drop the value under the top */
	PG_GPU_OP_NULLIF,			/* pop a bool; TRUE: the new top becomes NULL */
	/* text (UTF-8 databases only: docs/SEMANTICS.md 24) */
	PG_GPU_OP_LIKE,				/* type: operand type, a: constant holding the
								 * pattern (pg_gpu_like_*), b = 1: NOT LIKE */
	PG_GPU_OP_SUBSTR,			/* a: constant skip << 32 | count, in characters
								 * (count PG_GPU_SUBSTR_ALL: to the end) */
	PG_GPU_OP_RTRIM,			/* bpchar to text: trailing blanks dropped */
	/* EXTRACT / date_part (cuda/datetime.cuh, docs/SEMANTICS.md 28) */
	PG_GPU_OP_DATEPART,			/* type: DECIMAL (EXTRACT: at the field's
								 * scale, dscale that scale) or FLOAT8
								 * (date_part); a: pg_gpu_dt_field; b: the
								 * operand's type (DATE or TIMESTAMP) |
								 * PG_GPU_DT_DATE_AS_TS (a date made a
								 * timestamp first) */
	PG_GPU_OP_SET_NE			/* type: the key's comparison type, a: key
								 * set holding each key's least and greatest
								 * value (payload columns 0 and 1: a collect
								 * task's aux); pops x (an integer word), then
								 * the key: TRUE when the key is in the set, x
								 * is not NULL and some value of the key
								 * differs from x (EXISTS ... AND inner.b <>
								 * x); FALSE otherwise, never NULL
								 * (docs/SEMANTICS.md 29) */
} pg_gpu_opcode;

/* The fields PG_GPU_OP_DATEPART extracts (PostgreSQL's DTK_* units). */
typedef enum pg_gpu_dt_field
{
	PG_GPU_DT_YEAR = 1,
	PG_GPU_DT_MONTH,
	PG_GPU_DT_DAY,
	PG_GPU_DT_QUARTER,
	PG_GPU_DT_WEEK,
	PG_GPU_DT_DOW,
	PG_GPU_DT_ISODOW,
	PG_GPU_DT_DOY,
	PG_GPU_DT_DECADE,
	PG_GPU_DT_CENTURY,
	PG_GPU_DT_MILLENNIUM,
	PG_GPU_DT_ISOYEAR,
	PG_GPU_DT_JULIAN,
	PG_GPU_DT_EPOCH,
	PG_GPU_DT_HOUR,
	PG_GPU_DT_MINUTE,
	PG_GPU_DT_SECOND,
	PG_GPU_DT_MILLISEC,
	PG_GPU_DT_MICROSEC
} pg_gpu_dt_field;

#define PG_GPU_DT_DATE_AS_TS 0x100

/*
 * A LIKE pattern as the compiler hands it to PG_GPU_OP_LIKE: escapes resolved,
 * literal bytes as themselves, % and _ as bytes that valid UTF-8 never holds,
 * runs of % as one.
 */
#define PG_GPU_LIKE_ANY		0xFF	/* % */
#define PG_GPU_LIKE_ONE		0xFE	/* _ : one character */
#define PG_GPU_SUBSTR_ALL	0xFFFFFFFFu

typedef enum pg_gpu_cmp
{
	PG_GPU_CMP_LT = 1,
	PG_GPU_CMP_LE,
	PG_GPU_CMP_EQ,
	PG_GPU_CMP_GE,
	PG_GPU_CMP_GT,
	PG_GPU_CMP_NE
} pg_gpu_cmp;

/*
 * One term of a grouped task's HAVING pre-filter (pg_gpu_agg_task.having): the
 * group's rows (input -1: count(*)), or input's count of non-NULL values
 * (PG_GPU_HAV_COUNT) or exact sum (PG_GPU_HAV_SUM: int128, at the input's scale
 * for DECIMAL), compared (op, pg_gpu_cmp) with the int128 constant (lo, hi).
 */
#define PG_GPU_MAX_HAVING 4
#define PG_GPU_HAV_COUNT 1
#define PG_GPU_HAV_SUM 2

typedef struct pg_gpu_having
{
	int16_t		input;
	uint8_t		what;
	uint8_t		op;
	uint32_t	pad;
	uint64_t	lo;
	uint64_t	hi;
} pg_gpu_having;

typedef struct pg_gpu_instr
{
	uint8_t		op;
	uint8_t		type;
	uint16_t	a;
	uint32_t	b;
} pg_gpu_instr;

/* One program: instructions [start, start+len) leave one value on the stack. */
typedef struct pg_gpu_expr
{
	uint16_t	start;
	uint16_t	len;
	uint8_t		type;			/* pg_gpu_coltype of the result */
	uint8_t		needs;			/* aggregate inputs: PG_GPU_NEED_* */
	uint8_t		scale;			/* DECIMAL results: their scale */
	uint8_t		dscale_fixed;	/* DECIMAL results: 1 when every value's
								 * dscale is scale (typmod'd columns and
								 * constants), 0 when it varies per value */
} pg_gpu_expr;

/* What an aggregate input's state must hold (grouped tables keep only that). */
#define PG_GPU_NEED_MINMAX	0x1
#define PG_GPU_NEED_SUM		0x2		/* sum(): int sum / float plain sum */
#define PG_GPU_NEED_AVG		0x4		/* avg(): int sum / float Sx */
#define PG_GPU_NEED_VAR		0x8		/* var/stddev: + sum of squares */

typedef struct pg_gpu_agg_column
{
	int16_t		attidx;			/* 0-based attribute index in the heap tuple */
	uint8_t		type;			/* pg_gpu_coltype */
	uint8_t		scale;			/* DECIMAL: the scale its values are read at;
								 * a column cache layout's text column: its
								 * cells' bytes (pg_gpu_cc_seg) */
} pg_gpu_agg_column;

/*
 * A key set a task probes (pg_gpu_keyset_ref fills it): device addresses, or
 * host ones when the task is emulated.  Keys are integers as int64 (any integer
 * type, date, timestamp) or text (type PG_GPU_TEXT / PG_GPU_BPCHAR).
 */
typedef struct pg_gpu_set_ref
{
	uint64_t	tab;			/* slots (keyset.cuh), mask + 1 of them */
	uint64_t	mask;
	uint64_t	vals;			/* int64 keys */
	uint64_t	data;			/* text keys: bytes, and n + 1 offsets */
	uint64_t	off;
	uint64_t	mult;			/* per key ordinal: how many keys are equal */
	uint64_t	max_mult;		/* the largest of them (0: no mult) */
	uint64_t	trie;			/* not 0: a dictionary's trie (trie.cuh's
								 * trie_view) answers instead of tab */
	uint64_t	pay;			/* payload: npay columns of n words, column
								 * after column, row i for the key of index i */
	uint64_t	pay_null;		/* ... and a byte per word, 1: NULL */
	uint64_t	pay_n;			/* rows per payload column */
	int32_t		npay;
	int32_t		type;
	uint8_t		has_null;		/* the set's source held a NULL */
	uint8_t		nonempty;		/* ... held at least one value, NULL or not */
	uint16_t	pad;
} pg_gpu_set_ref;

typedef struct pg_gpu_agg_task
{
	/* physical layout of attributes 0 .. natts-1 (natts covers every column read) */
	int32_t		natts;
	int16_t		attlen[PG_GPU_MAX_DEFORM_ATTS];
	uint8_t		attalign[PG_GPU_MAX_DEFORM_ATTS];	/* 1, 2, 4 or 8 */
	/* attributes deformed per tuple, sorted by attidx */
	int32_t		ncols;
	pg_gpu_agg_column cols[PG_GPU_MAX_COLS];
	/* aggregate inputs: one state each (PG_GPU_ANY: counts non-NULLs) */
	int32_t		ninputs;
	pg_gpu_expr inputs[PG_GPU_MAX_AGG_COLS];
	/* WHERE (len 0: none) and GROUP BY keys (nkeys 0: one group) */
	pg_gpu_expr filter;
	int32_t		nkeys;
	pg_gpu_expr keys[PG_GPU_MAX_KEYS];
	int64_t		groups_hint;	/* planner's estimate of the group count */
	/*
	 * A proven bound on the group count (0: none), set by the caller at run
	 * time: every key a star join's payload column (key_pay: 1 + set *
	 * PG_GPU_MAX_PAYLOAD + column; 0: another expression), the product of
	 * their distinct values, each plus one for NULL.  The table is then never
	 * grown for more, and a chunk's rows need not all be new groups.
	 */
	int64_t		groups_max;
	uint8_t		key_pay[PG_GPU_MAX_KEYS];
	/* bytecode and constants of all programs */
	int32_t		nprog;
	pg_gpu_instr prog[PG_GPU_MAX_PROG];
	uint64_t	consts[PG_GPU_MAX_CONSTS];	/* int64 or double bits */
	uint64_t	const_null;		/* bit i: constant i is NULL */
	uint8_t		strpool[PG_GPU_MAX_STRPOOL];	/* bytes of text constants */
	/* key sets probed by IN_SET / SET_MULT, filled in by the caller at run time */
	int32_t		nsets;
	pg_gpu_set_ref sets[PG_GPU_MAX_SETS];
	/*
	 * Ungrouped tasks with no aggregate inputs (count(*) over an inner join):
	 * each passing row counts as this program's value (len 0: as one).  Sort
	 * tasks (rows of an inner join): each passing row is handed out that many
	 * times; the program must end in SET_MULT, whose set's max_mult bounds it.
	 */
	pg_gpu_expr weight;
	/*
	 * GpuSort (sort = 1): keys[0 .. nkeys) are the sort keys, most significant
	 * first, with their direction and NULL placement; no aggregate inputs.  The
	 * engine keeps every submitted page (total_pages of them at most) and, after
	 * finish, returns the passing tuples in order (pg_gpu_sort_next), the first
	 * sort_limit of them when sort_limit > 0.  With nkeys = 0 (GpuHashJoin,
	 * GpuSemiJoin) the rows come back unsorted, in no particular order.
	 */
	int32_t		sort;
	uint8_t		key_desc[PG_GPU_MAX_KEYS];
	uint8_t		key_nulls_first[PG_GPU_MAX_KEYS];
	int64_t		total_pages;
	int64_t		sort_limit;
	int64_t		sort_budget;	/* device bytes a sort may use; 0: the device's
								 * (or pg_gpu.device_memory_limit's) */
	/*
	 * Collect tasks (collect = 1): one key program (keys[0], an integer or text
	 * type, nkeys = 1) and no aggregate inputs.  The engine keeps the key of
	 * every row that passes the filter (NULLs only noted) and after finish hands
	 * them over as a key set (pg_gpu_agg_keyset).  collect_hint: keys expected;
	 * total_pages, when set, the table's pages (they bound the keys' buffers).
	 * With nkeys = 2, keys[1] is an aux value (an integer, date or timestamp)
	 * and keys[0] an integer: a row whose aux is NULL is not collected, and the
	 * set gets a payload of two columns, the least and the greatest aux among
	 * each key's rows (what PG_GPU_OP_SET_NE reads).
	 *
	 * collect_pay > 0 (a star join's dimension read whole, its key unique):
	 * keys[0] an integer key, keys[1 .. nkeys) its collect_pay payload columns
	 * (integers, dates, timestamps, bools; NULL allowed), nkeys = 1 +
	 * collect_pay.  The set gets them as its payload, row i's values beside
	 * key i (what pg_gpu_keyset_payload would attach), and each column's
	 * distinct words (pg_gpu_keyset_pay_distinct), all without leaving the
	 * device.
	 */
	int32_t		collect;
	int32_t		collect_pay;
	int64_t		collect_hint;
	int32_t		chunk_pages;	/* pages per chunk the caller intends to submit */
	/*
	 * A table cache (pg_gpu_cache_alloc): cache_fill, when not 0, is its arena;
	 * the engine copies the k-th page submitted (from 0) to cache_fill + k *
	 * PG_GPU_BLCKSZ, for k below cache_pages, and reads it from there.
	 * pages_resident: the submitted pages' addresses are in such an arena
	 * already (nothing crosses PCIe but the page references).
	 */
	uint64_t	cache_fill;
	int64_t		cache_pages;
	int32_t		pages_resident;
	/*
	 * The GPU service's columnar cache (pg_gpu_cc_*, below): cc = 1 lets the
	 * caller hand cached rows and fills with a chunk (pg_gpu_agg_slot.cc);
	 * cc_col[c] is task column c's column in the cache's segments.  Plain and
	 * grouped tasks only.
	 */
	int32_t		cc;
	int8_t		cc_col[PG_GPU_MAX_COLS];
	int32_t		gather;			/* 1: caller copies pages into staging buffers;
								 * 0: page_ref.addr points at registered memory */
	int32_t		emulate;		/* run the engine on the host (tests; implies gather) */
	/*
	 * stage = 1 (registered pages, not a sort): a copy kernel pulls each chunk's
	 * pages into GPU memory and the operator reads them there, instead of each
	 * operator block reading its page over PCIe (scan/page_stage.cu).
	 */
	int32_t		stage;
	/*
	 * Grouped tasks: HAVING's terms of the form aggregate-compared-with-a-
	 * constant, ANDed.  A group is handed back unless a term is false, or NULL
	 * (a sum over no non-NULL value), for it; a group whose emission raises an
	 * error (an int2/int4 sum beyond bigint, a DECIMAL sum of too many values)
	 * is always handed back.  The caller still evaluates the whole HAVING on
	 * the groups that come back; this only spares it the ones that fail.  No
	 * float inputs, no count(DISTINCT) fold (the caller's to check).
	 */
	int32_t		nhaving;
	pg_gpu_having having[PG_GPU_MAX_HAVING];
	/*
	 * Grouped by one integer key: 1 + a set of integer keys each of which is a
	 * group even when no row has it (0: none), its seed_n distinct keys known
	 * to the caller.  A LEFT JOIN grouped by its preserved side's unique key
	 * (docs/SEMANTICS.md 32): such a group comes back with 0 rows and every
	 * input empty; the caller reads count(*) as 1 there.
	 */
	int32_t		seed_set;
	int32_t		seed_pad;
	int64_t		seed_n;
} pg_gpu_agg_task;

/*
 * Per-column exact state after reduction.  Integers: exact count, min, max, 128-bit
 * sum and 192-bit sum of squares.  Floats: min/max with NaN largest, a float4 sum
 * (float4 columns), and a Youngs-Cramer (N, Sx, Sxx) state merged the way
 * PostgreSQL's float8_combine does.
 */
typedef struct pg_gpu_col_state
{
	int64_t		n;				/* non-null values */
	int64_t		imin;
	int64_t		imax;
	uint64_t	sum_lo;			/* int128 two's complement */
	uint64_t	sum_hi;
	uint64_t	sq_lo;			/* uint192 sum of squares */
	uint64_t	sq_mid;
	uint64_t	sq_hi;
	double		fmin;
	double		fmax;
	double		yc_n;
	double		yc_sx;
	double		yc_sxx;
	double		fsum;			/* float4pl/float8pl sum: starts at the first
								 * value, so sum(-0) is -0 (avg's Sx is not) */
	uint64_t	dscales;		/* DECIMAL: bit d set when a value of dscale d
								 * was summed (sum's dscale is the largest) */
	uint32_t	flags;			/* PG_GPU_COLF_* */
} pg_gpu_col_state;

#define PG_GPU_COLF_SUM_OVERFLOW	0x1u	/* finite inputs, infinite Sx */
#define PG_GPU_COLF_SXX_OVERFLOW	0x2u	/* finite inputs, infinite Sxx */
#define PG_GPU_COLF_FSUM_OVERFLOW	0x4u	/* float4pl/float8pl overflow of fsum */
/*
 * Grouped Sx/Sxx at magnitudes where PostgreSQL's own Youngs-Cramer steps
 * (float8_accum, float8_combine) may overflow on rounding noise alone: the GPU
 * sums the group in another way and order, so it cannot tell whether
 * PostgreSQL raises "value out of range: overflow"; PostgreSQL's plan decides.
 */
#define PG_GPU_COLF_SXX_UNSURE		0x8u

typedef struct pg_gpu_agg_result
{
	int64_t		nrows;			/* tuples that passed the filter: count(*) */
	int32_t		sort_runs;		/* GpuSort: runs merged (0: sorted in one piece) */
	int64_t		sort_topn;		/* GpuSort under LIMIT: rows kept by the GPU's
								 * top-N selection and sorted (0: none ran) */
	pg_gpu_col_state cols[PG_GPU_MAX_AGG_COLS];	/* per input (ungrouped) */
	int64_t		ngroups;		/* grouped: groups, read with pg_gpu_agg_group */
	int64_t		groups_dropped;	/* grouped: groups HAVING's pre-filter kept back */
	uint32_t	group_flags;	/* grouped: PG_GPU_COLF_SXX_UNSURE if any group has it */
	int32_t		grows;			/* grouped: times the hash table was enlarged */
	uint64_t	bytes_h2d;		/* bytes that crossed PCIe towards the GPU */
	double		gpu_ms;			/* time the GPU spent in kernels/copies */
	int64_t		chunks;
	int64_t		pages;
} pg_gpu_agg_result;

/* What the caller fills for one page of a chunk. */
typedef struct pg_gpu_page_ref
{
	uint64_t	addr;			/* device address of the page (registered mode);
								 * ignored in gather mode */
	uint16_t	nlp;			/* line pointers captured under the share lock */
	uint16_t	pad;
	int32_t		vis_idx;		/* -1: all visible; else bitmap index */
} pg_gpu_page_ref;

/*
 * ---- The columnar cache's pieces (the GPU service keeps the cache) --------
 *
 * A segment holds the rows of some heap pages, deformed into columns: a header
 * (pg_gpu_cc_seg, at the segment's address), then a byte per row (1: a row; 0:
 * a line pointer that held no tuple), then, per column, its values at attlen
 * bytes each and, for a column that may be NULL, a byte per row (1: NULL).
 * Fixed-width columns (attlen 1, 2, 4 or 8), and numeric(p,s) columns kept
 * decoded as DECIMAL at scale s: 16 bytes, the int128's low then high word, or
 * a high word of PG_GPU_CC_DEC_BAD for a value the kernels do not keep (NaN,
 * +-Infinity, past 2^PG_GPU_DEC_BITS).  char(n) and varchar(n) columns (layout
 * type PG_GPU_TEXT, scale: the cell's bytes, 4, 8, 16 or 32) keep each value in
 * a cell of that many bytes as a short varlena, as a page holds it (a 1-byte
 * header, then the bytes, bpchar's padding included; the rest of the cell 0),
 * so the kernels read a pointer to the cell as a pointer into a page; a value
 * that does not fit (or is compressed or out of line) is a cell whose first byte
 * is PG_GPU_CC_TEXT_BAD, a TOAST pointer's header, which the kernels read as a
 * value they cannot read: the query re-runs on the CPU (PG_GPU_TOASTED).
 * Addresses are device addresses, or host ones when emulated.
 */
#define PG_GPU_CC_MAX_COLS 16
#define PG_GPU_CC_DEC_BAD 0x8000000000000000ULL
#define PG_GPU_CC_TEXT_BAD 0x01
#define PG_GPU_CC_TEXT_MAX 32	/* a text cell's bytes at most */
#define PG_GPU_CC_MAX_RANGES 32768	/* cached row ranges a chunk carries */

typedef struct pg_gpu_cc_seg
{
	uint64_t	nrows;
	uint64_t	valid;
	uint64_t	vals[PG_GPU_CC_MAX_COLS];
	uint64_t	nulls[PG_GPU_CC_MAX_COLS];	/* 0: the column has no NULLs */
	int32_t		width[PG_GPU_CC_MAX_COLS];
} pg_gpu_cc_seg;

/* What a fill deforms: the heap layout up to its columns, and the columns. */
typedef struct pg_gpu_cc_layout
{
	int32_t		natts;
	int16_t		attlen[PG_GPU_MAX_DEFORM_ATTS];
	uint8_t		attalign[PG_GPU_MAX_DEFORM_ATTS];
	int32_t		ncols;
	pg_gpu_agg_column cols[PG_GPU_CC_MAX_COLS];	/* sorted by attidx */
	uint8_t		nullable[PG_GPU_CC_MAX_COLS];
} pg_gpu_cc_layout;

/* Rows row .. row + nrows - 1 of the segment at seg. */
typedef struct pg_gpu_cc_range
{
	uint64_t	seg;
	uint64_t	row;
	uint64_t	nrows;
} pg_gpu_cc_range;

/*
 * A chunk's cache part, filled by the caller with the chunk (task.cc): cached
 * rows to read besides the pages, and pages to deform into a new segment
 * (fill_seg, laid out by pg_gpu_cc_seg_layout for fill_rows rows): page p's
 * line pointer i becomes row fill_row[p] + i (UINT64_MAX: not filled).
 */
typedef struct pg_gpu_cc_chunk
{
	int32_t		nranges;
	pg_gpu_cc_range *ranges;	/* host, PG_GPU_CC_MAX_RANGES + 1 entries */
	uint64_t	fill_seg;		/* 0: no fill */
	uint64_t	fill_rows;
	const pg_gpu_cc_layout *fill_layout;
	uint64_t   *fill_row;		/* host, capacity entries */
} pg_gpu_cc_chunk;

/* The header of a segment of nrows rows at base; returns its bytes. */
static inline uint64_t
pg_gpu_cc_seg_layout(const pg_gpu_cc_layout *l, uint64_t nrows, uint64_t base,
					 pg_gpu_cc_seg *hdr)
{
	uint64_t	off = (sizeof(pg_gpu_cc_seg) + 255) & ~(uint64_t) 255;
	int			c;

	hdr->nrows = nrows;
	hdr->valid = base + off;
	off += (nrows + 255) & ~(uint64_t) 255;
	for (c = 0; c < PG_GPU_CC_MAX_COLS; c++)
	{
		hdr->vals[c] = 0;
		hdr->nulls[c] = 0;
		hdr->width[c] = 0;
		if (c >= l->ncols)
			continue;
		hdr->width[c] = l->cols[c].type == PG_GPU_DECIMAL ? 16
			: l->cols[c].type == PG_GPU_TEXT ? l->cols[c].scale : l->attlen[l->cols[c].attidx];
		hdr->vals[c] = base + off;
		off += ((uint64_t) hdr->width[c] * nrows + 255) & ~(uint64_t) 255;
		if (l->nullable[c])
		{
			hdr->nulls[c] = base + off;
			off += (nrows + 255) & ~(uint64_t) 255;
		}
	}
	return off;
}

/* Host-side buffers of one slot, to be filled by the caller before submit. */
typedef struct pg_gpu_agg_slot
{
	int			slot;
	int			capacity;		/* pages */
	pg_gpu_page_ref *refs;		/* pinned host, capacity entries */
	uint32_t   *vis;			/* pinned host, capacity * PG_GPU_VIS_WORDS */
	char	   *staging;		/* pinned host, capacity * PG_GPU_BLCKSZ (gather) */
	pg_gpu_cc_chunk *cc;		/* task.cc: the chunk's cache part (reset to
								 * none after each submit) */
} pg_gpu_agg_slot;

typedef struct pg_gpu_agg pg_gpu_agg;

pg_gpu_agg *pg_gpu_agg_begin(const pg_gpu_agg_task *task, pg_gpu_error *err);

/* Non-blocking: 1 if the slot's previous chunk is finished (slot reusable). */
int			pg_gpu_agg_slot_idle(pg_gpu_agg *agg, int slot);

/* Buffers of a slot; the slot must be idle. */
pg_gpu_status pg_gpu_agg_slot_get(pg_gpu_agg *agg, int slot, pg_gpu_agg_slot *out,
								  pg_gpu_error *err);

/* Queue npages of the slot (nvis bitmaps used) for transfer and reduction. */
pg_gpu_status pg_gpu_agg_submit(pg_gpu_agg *agg, int slot, int npages, int nvis,
								pg_gpu_error *err);

/* 1 when every submitted chunk has finished (non-blocking). */
int			pg_gpu_agg_all_idle(pg_gpu_agg *agg);

/* Collect the reduced states; all slots must be idle. */
pg_gpu_status pg_gpu_agg_finish(pg_gpu_agg *agg, pg_gpu_agg_result *res,
								pg_gpu_error *err);

/*
 * Grouped tasks, after finish: group g's key values (int64 / normalised float bits;
 * text keys: the host address of a 4-byte-header varlena holding the first value
 * the group met, valid until pg_gpu_agg_end; keys[k] undefined where bit k of
 * *nullmask is set), its row count and the state of every input.
 */
void		pg_gpu_agg_group(pg_gpu_agg *agg, int64_t g, uint64_t *keys,
							 uint32_t *nullmask, int64_t *rows, pg_gpu_col_state *states);

/*
 * Sort tasks, after finish: the next batch of sorted tuples (nrows 0: no more).
 * Tuple i's bytes are at data + (off[i] - off[0]); ref[i] is its page ordinal (the
 * order in which pages were submitted, from 0) << 32 | line pointer number << 16 |
 * tuple length.  The batch stays valid until the next call.
 */
typedef struct pg_gpu_sort_batch
{
	int64_t		nrows;
	const char *data;
	const uint64_t *off;
	const uint64_t *ref;
} pg_gpu_sort_batch;

pg_gpu_status pg_gpu_sort_next(pg_gpu_agg *agg, pg_gpu_sort_batch *out, pg_gpu_error *err);

/* Whether a sort task's keys fit the engine's sort words (text keys take nine). */
int			pg_gpu_sort_words_ok(const pg_gpu_agg_task *task);

/*
 * GpuSort over any child plan (the slot path): the caller hands over each row's
 * key values, the engine encodes them into sort words on the host and sorts the
 * words on the GPU (or emulated); the caller keeps the rows and emits them in the
 * order returned.  The task is a sort task whose keys give only the type, the
 * direction and the NULL placement (no programs, no columns).
 */
typedef struct pg_gpu_keysort pg_gpu_keysort;

pg_gpu_keysort *pg_gpu_keysort_begin(const pg_gpu_agg_task *task, pg_gpu_error *err);

/*
 * One row's keys, as the kernels hold values: integers, dates and timestamps as
 * int64, floats as double bits, bool 0 or 1, text and numeric as the address of
 * their bytes after the varlena header (vals[k]) and their length (lens[k]).
 * Bit k of nulls: key k is NULL.  The bytes are read before the call returns.
 */
pg_gpu_status pg_gpu_keysort_add(pg_gpu_keysort *ks, const uint64_t *vals, const uint32_t *lens,
								 uint32_t nulls, pg_gpu_error *err);

/* Bytes of host memory the rows added so far hold. */
uint64_t	pg_gpu_keysort_bytes(const pg_gpu_keysort *ks);

/*
 * Sort the rows added: *order gets the row numbers in order (the first sort_limit
 * when that is set), valid until pg_gpu_keysort_end.  PG_GPU_UNORDERED: keys
 * equal in the prefix the GPU sorts; PG_GPU_OUT_OF_MEMORY: over the device budget.
 */
pg_gpu_status pg_gpu_keysort_sort(pg_gpu_keysort *ks, const uint32_t **order, uint64_t *n,
								  double *gpu_ms, uint64_t *bytes_h2d, pg_gpu_error *err);
void		pg_gpu_keysort_end(pg_gpu_keysort *ks);

/*
 * A key sort split between two processes (the GPU service sorts, issue 32):
 * the backend encodes its rows with a key sort begun by
 * pg_gpu_keysort_begin_encode (host code only: no CUDA, and it cannot sort),
 * reads what the rows showed (pg_gpu_keysort_shape_of) and their words; the
 * service begins one with pg_gpu_keysort_begin_words from that shape, is given
 * the words (pg_gpu_keysort_put, any ranges of any word, each row's word once)
 * and sorts them with pg_gpu_keysort_sort as a key sort that was added to.
 */
typedef struct pg_gpu_keysort_shape
{
	uint64_t	rows;
	int32_t		nwords;			/* words per row */
	uint32_t	nulls;			/* bit k: key k met a NULL */
	uint32_t	longs;			/* bit k: key k met a value over the prefix */
	uint32_t	maxlen[PG_GPU_MAX_KEYS];
} pg_gpu_keysort_shape;

pg_gpu_keysort *pg_gpu_keysort_begin_encode(const pg_gpu_agg_task *task, pg_gpu_error *err);
void		pg_gpu_keysort_shape_of(const pg_gpu_keysort *ks, pg_gpu_keysort_shape *out);
/* Word w of every row added (shape's rows of them), valid until the next add. */
const uint64_t *pg_gpu_keysort_words(const pg_gpu_keysort *ks, int w);
pg_gpu_keysort *pg_gpu_keysort_begin_words(const pg_gpu_agg_task *task,
										   const pg_gpu_keysort_shape *shape,
										   pg_gpu_error *err);
pg_gpu_status pg_gpu_keysort_put(pg_gpu_keysort *ks, int w, uint64_t first, uint64_t n,
								 const uint64_t *words, pg_gpu_error *err);

/* Release everything (safe on a half-built handle, safe after errors). */
void		pg_gpu_agg_end(pg_gpu_agg *agg);

/*
 * A task run by another process (the GPU service, src/service/): its client
 * supplies these calls, and pg_gpu_agg_client wraps them in a handle that every
 * pg_gpu_agg_* call above, and pg_gpu_sort_next, accepts.  A collect task's
 * keys stay where it ran (pg_gpu_agg_keyset answers PG_GPU_INVALID_TASK: the
 * service keeps them as a key set of its own).
 */
typedef struct pg_gpu_agg_client_ops
{
	int			(*slot_idle) (void *h, int slot);
	pg_gpu_status (*slot_get) (void *h, int slot, pg_gpu_agg_slot *out, pg_gpu_error *err);
	pg_gpu_status (*submit) (void *h, int slot, int npages, int nvis, pg_gpu_error *err);
	pg_gpu_status (*finish) (void *h, pg_gpu_agg_result *res, pg_gpu_error *err);
	void		(*group) (void *h, int64_t g, uint64_t *keys, uint32_t *nullmask,
						  int64_t *rows, pg_gpu_col_state *states);
	void		(*end) (void *h);
	pg_gpu_status (*sort_next) (void *h, pg_gpu_sort_batch *out, pg_gpu_error *err);
} pg_gpu_agg_client_ops;

/* NULL only when out of host memory; the handle's end calls ops->end(h). */
pg_gpu_agg *pg_gpu_agg_client(const pg_gpu_agg_client_ops *ops, void *h);

struct pg_gpu_keyset;

/*
 * Collect tasks, after finish: the keys collected, as a key set of the given
 * type (PG_GPU_INT8, PG_GPU_TEXT, PG_GPU_BPCHAR) built where the task ran, the
 * caller's to free (a second call answers NULL).  *keys: non-NULL keys
 * collected; *has_null: a passing row's key was NULL.  NULL with err set on
 * failure.
 */
struct pg_gpu_keyset *pg_gpu_agg_keyset(pg_gpu_agg *agg, int type, uint64_t *keys,
										int *has_null, pg_gpu_error *err);

/* Key sets and dictionaries: pg_gpu_engine_sets.h (included at the end). */

/*
 * ---- Table caches: a table's pages kept in GPU memory between queries -------
 *
 * An arena of bytes for page images (device memory; host memory when emulate),
 * outside the per-query pools and pg_gpu.device_memory_limit: the caller (the
 * table cache, src/scan/table_cache.cpp) keeps its own budget.  *addr: its address
 * as the kernels read it.
 */
pg_gpu_status pg_gpu_cache_alloc(uint64_t bytes, int emulate, uint64_t *addr,
								 pg_gpu_error *err);
void		pg_gpu_cache_free(uint64_t addr, int emulate);

/* ---- explicit aggregates: one group's collected values ------------------ */

/*
 * Exact state of n values stored natively (int16/int32/int64/float/double per
 * coltype), reduced on the GPU; *gpu_ms receives the device time (copy included).
 */
pg_gpu_status pg_gpu_reduce(const void *values, int64_t n, int coltype,
							pg_gpu_col_state *out, double *gpu_ms, pg_gpu_error *err);

/* The same reduction on the CPU (same arithmetic, sequential). */
void		pg_gpu_reduce_host(const void *values, int64_t n, int coltype,
							   pg_gpu_col_state *out);

/* ---- host-side helpers shared with src/ (exact state arithmetic) --------- */

/*
 * Merge state b into a (host): the rule that merges the GPU's partial states
 * (agg_state.cuh), coltype the input's pg_gpu_coltype.  GpuAgg's fold of
 * count(DISTINCT x) combines groups with it.
 */
void		pg_gpu_col_state_merge(pg_gpu_col_state *a, const pg_gpu_col_state *b, int coltype);

/* Decimal text of the int128 sum / uint192 sum of squares (buf >= 64 bytes). */
void		pg_gpu_int128_to_dec(uint64_t lo, uint64_t hi, char *buf);
void		pg_gpu_uint192_to_dec(uint64_t lo, uint64_t mid, uint64_t hi, char *buf);

#ifdef __cplusplus
}
#endif

#include "pg_gpu_engine_sets.h"

#endif							/* PG_GPU_ENGINE_H */
