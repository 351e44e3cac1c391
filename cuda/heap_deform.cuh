/*
 * heap_deform.cuh — walking a heap tuple's attributes without PostgreSQL.
 *
 * This is heap_deform_tuple's offset logic restated for one thread: null bitmap,
 * attalign padding, fixed-length values, and varlena headers (1-byte, 4-byte and
 * TOAST pointers, whose *sizes* are in their headers even when their contents are
 * compressed or out of line).  A value is only ever read for fixed-width numeric
 * columns and for text columns stored in line and uncompressed (their bytes are
 * compared where they lie); other varlenas are only stepped over.  A compressed or
 * out-of-line text value that a task reads makes the query re-run on the CPU.
 * Anything inconsistent (offsets past the tuple) returns false and the caller
 * records a "bad page" error: the query then falls back to PostgreSQL.
 * Values are then read by load_col (expr.cuh) and fed to the task's programs.
 */
#ifndef PG_GPU_HEAP_DEFORM_CUH
#define PG_GPU_HEAP_DEFORM_CUH

#include "agg_state.cuh"
#include "expr.cuh"
#include "pg_gpu_layout.h"

namespace pg_gpu {
namespace cuda {

PG_GPU_HD uint32_t
align_up(uint32_t off, uint32_t a)
{
	return (off + a - 1) & ~(a - 1);
}

/*
 * Size of the varlena starting at p (whose first byte is nonzero or which sits on an
 * aligned offset).  Mirrors VARSIZE_ANY for the little-endian header encodings.
 */
PG_GPU_HD uint32_t
varlena_size(const uint8_t *p)
{
	uint8_t		b = p[0];

	if (b == 0x01)
	{
		/* 1-byte header with a vartag: TOAST pointer */
		return 2 + (p[1] == PG_GPU_VARTAG_ONDISK ? PG_GPU_VARATT_EXTERNAL_SIZE
					: PG_GPU_VARATT_PTR_SIZE);
	}
	if (b & 0x01)
		return b >> 1;			/* short varlena */
	uint32_t	w = (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);

	return (w >> 2) & 0x3FFFFFFFu;
}

/*
 * Walk attributes 0..last of the tuple at tup (len bytes) and call
 * visit(col, ptr-or-null) for each requested column (cols sorted by attidx).
 */
template <typename Layout, typename Visit>
PG_GPU_HD bool
deform_tuple(const uint8_t *tup, uint32_t len, const Layout &task, Visit &&visit)
{
	if (len < PG_GPU_T_BITS_OFF)
		return false;
	uint16_t	infomask2 = (uint16_t) (tup[PG_GPU_T_INFOMASK2_OFF] |
										(tup[PG_GPU_T_INFOMASK2_OFF + 1] << 8));
	uint16_t	infomask = (uint16_t) (tup[PG_GPU_T_INFOMASK_OFF] |
									   (tup[PG_GPU_T_INFOMASK_OFF + 1] << 8));
	uint32_t	hoff = tup[PG_GPU_T_HOFF_OFF];
	int			natts = infomask2 & PG_GPU_HEAP_NATTS_MASK;
	bool		hasnull = (infomask & PG_GPU_HEAP_HASNULL) != 0;
	const uint8_t *bits = tup + PG_GPU_T_BITS_OFF;

	if (hoff > len)
		return false;

	const uint8_t *data = tup + hoff;
	uint32_t	dlen = len - hoff;
	uint32_t	off = 0;
	int			c = 0;

	for (int j = 0; c < task.ncols; j++)
	{
		bool		want = (task.cols[c].attidx == j);

		if (j >= natts || (hasnull && !(bits[j >> 3] & (1 << (j & 7)))))
		{
			if (want)
				visit(c++, (const uint8_t *) nullptr);
			continue;
		}
		int			attlen = task.attlen[j];

		if (attlen > 0)
		{
			off = align_up(off, task.attalign[j]);
			if (off + (uint32_t) attlen > dlen)
				return false;
			if (want)
				visit(c++, data + off);
			off += attlen;
		}
		else
		{
			/* varlena: short headers are never padded (att_align_pointer) */
			if (off >= dlen)
				return false;
			if (data[off] == 0)
				off = align_up(off, task.attalign[j]);
			if (off >= dlen)
				return false;
			uint32_t	sz = varlena_size(data + off);

			if (sz == 0 || off + sz > dlen)
				return false;
			if (want)
				visit(c++, data + off);
			off += sz;
		}
	}
	return true;
}

/* What one tuple contributes, after the filter. */
enum
{
	TUP_SKIP = 0,				/* filtered out */
	TUP_OK = 1,
	TUP_BAD = -1,				/* cannot be decoded: fall back */
	TUP_EXPR_ERROR = -2,		/* PostgreSQL would raise an error: re-run on CPU */
	TUP_TOASTED = -3			/* a text value is compressed or out of line */
};

/* The status a chunk reports for a failing tuple. */
PG_GPU_HD int
tup_status(int r)
{
	return r == TUP_BAD ? PG_GPU_BAD_PAGE
		: r == TUP_TOASTED ? PG_GPU_TOASTED : PG_GPU_EXPR_ERROR;
}

/*
 * Where a row's column values come from: a heap tuple, deformed; or a row of
 * the columnar cache (pg_gpu_cc_seg), whose columns are the task's through
 * task.cc_col.  Both call visit(c, pointer or null) for the task's columns.
 */
struct heap_row
{
	static constexpr bool cached = false;
	const uint8_t *tup;
	uint32_t	len;

	template <typename Visit>
	PG_GPU_HD bool deform(const pg_gpu_agg_task &task, Visit &&visit) const
	{
		return deform_tuple(tup, len, task, visit);
	}
};

struct cc_row
{
	static constexpr bool cached = true;	/* values as load_cached reads them */
	const pg_gpu_cc_seg *seg;
	uint64_t	r;

	template <typename Visit>
	PG_GPU_HD bool deform(const pg_gpu_agg_task &task, Visit &&visit) const
	{
		for (int c = 0; c < task.ncols; c++)
		{
			int			e = task.cc_col[c];
			const uint8_t *nulls = (const uint8_t *) (uintptr_t) seg->nulls[e];

			if (nulls && nulls[r])
				visit(c, (const uint8_t *) nullptr);
			else
				visit(c, (const uint8_t *) (uintptr_t) seg->vals[e] + r * (uint64_t) seg->width[e]);
		}
		return true;
	}
};

/*
 * Deform the row's columns, apply the filter, and evaluate the group keys (into
 * keys, when the task has any) and the aggregate inputs.  A weighted task returns
 * the row's weight instead of TUP_OK.
 */
template <typename Row>
PG_GPU_HD int
eval_row(const Row &row, const pg_gpu_agg_task &task, pval *inputs, pval *keys)
{
	pval		cols[PG_GPU_MAX_COLS];
	bool		toasted = false;

	/* a numeric decimal.cuh does not keep fails where it is read (OP_COL) */
	if (!row.deform(task, [&](int c, const uint8_t *p) {
		cols[c] = Row::cached ? load_cached(p, task.cols[c].type, task.cols[c].scale)
			: load_col(p, task.cols[c].type, task.cols[c].scale);
		toasted |= (cols[c].len == kToasted);
	}))
		return TUP_BAD;
	if (toasted)
		return TUP_TOASTED;
	if (task.filter.len > 0)
	{
		pval		f;

		if (!eval(task, task.filter, cols, &f))
			return TUP_EXPR_ERROR;
		if (f.null || f.bits == 0)
			return TUP_SKIP;
	}
	for (int k = 0; k < task.nkeys; k++)
		if (!eval(task, task.keys[k], cols, &keys[k]))
			return TUP_EXPR_ERROR;
	if (task.weight.len > 0)
	{
		/*
		 * A plain task with no inputs, or a sort task (valid_task): the row
		 * counts, or is handed out, w times.
		 */
		pval		w;

		if (!eval(task, task.weight, cols, &w) || w.null || (int64_t) w.bits > 0x7FFFFFFF)
			return TUP_EXPR_ERROR;
		return (int) w.bits;
	}
	for (int i = 0; i < task.ninputs; i++)
	{
		const pg_gpu_expr &e = task.inputs[i];

		if (e.len == 1 && task.prog[e.start].op == PG_GPU_OP_COL &&
			e.type != PG_GPU_DECIMAL)
			inputs[i] = cols[task.prog[e.start].a];
		else if (!eval(task, e, cols, &inputs[i]))
			return TUP_EXPR_ERROR;
		/* a DECIMAL's min and max are kept in 64 bits */
		if (e.type == PG_GPU_DECIMAL && (e.needs & PG_GPU_NEED_MINMAX) &&
			!inputs[i].null && (int128) (int64_t) inputs[i].bits != dec_of(inputs[i]))
			return TUP_EXPR_ERROR;
	}
	return TUP_OK;
}

PG_GPU_HD int
eval_tuple(const uint8_t *tup, uint32_t len, const pg_gpu_agg_task &task,
		   pval *inputs, pval *keys)
{
	return eval_row(heap_row{tup, len}, task, inputs, keys);
}

/* Fold one input value into an exact state. */
PG_GPU_HD void
accum_value(pg_gpu_col_state &s, const pval &v, int type)
{
	if (v.null)
		return;
	if (type == PG_GPU_ANY)
		s.n++;
	else if (type == PG_GPU_DECIMAL)
		accum_dec(s, dec_of(v), v.len);
	else if (is_float_type(type))
		accum_float(s, as_f(v.bits), type);
	else
		accum_int(s, (int64_t) v.bits);
}

/* Ungrouped: fold one row into per-input states; returns a TUP_* code. */
template <typename Row>
PG_GPU_HD int
accum_row(const Row &row, const pg_gpu_agg_task &task, pg_gpu_col_state *st)
{
	pval		in[PG_GPU_MAX_AGG_COLS];
	int			r = eval_row(row, task, in, nullptr);

	if (r == TUP_OK)
		for (int i = 0; i < task.ninputs; i++)
			accum_value(st[i], in[i], task.inputs[i].type);
	return r;
}

PG_GPU_HD int
accum_tuple(const uint8_t *tup, uint32_t len, const pg_gpu_agg_task &task,
			pg_gpu_col_state *st)
{
	return accum_row(heap_row{tup, len}, task, st);
}

}							/* namespace cuda */
}							/* namespace pg_gpu */

#endif							/* PG_GPU_HEAP_DEFORM_CUH */
