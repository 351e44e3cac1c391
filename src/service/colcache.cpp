/*
 * colcache.cpp — the GPU service's columnar table cache (colcache.h): its
 * shared memory, and the service's bookkeeping of segments and blocks.
 *
 * Everything here but the shared memory set-up runs in the service's threads:
 * no PostgreSQL call, one mutex (cc_mu) around the entries' state.  Per entry
 * the service keeps, for every heap block it may cache, the segment that holds
 * its rows (seg_of), its first row there and its line-pointer count, and how
 * many blocks from it on continue the same segment's rows (ext), so a run of
 * cached blocks becomes a few row ranges without visiting every block.
 *
 * The rule that makes a cached block safe to read (docs/GPU_SERVICE.md): the
 * fill deformed it from a page that was all-visible under its share lock, with
 * the VM page's LSN read before; the block is read from the cache only while
 * its VM bit is set and the VM page still has that LSN.  When a fill brings a
 * newer LSN for a VM page, every segment with a block under that VM page goes
 * (its blocks may have changed and been marked all-visible again); a fill with
 * an older LSN is not kept for those blocks.
 *
 * Memory: segments are allocated when a chunk is filled and count against
 * pg_gpu.cache_size at once; a task that fails frees its fills.  A segment
 * dropped while tasks read the entry waits (garbage) until none does.
 *
 * Out of host memory (std::bad_alloc from a vector) the calls leave the cache
 * as it was and the exception goes on to the service thread's catch, which
 * fails the task: every allocation comes before the first change to an entry
 * (room is reserved first), cc_mu is held by lock guards, a task's reader
 * count is taken last, and detaching (the failed task's clean-up) allocates
 * nothing: a fill that was never published is freed at once, since only its
 * own task, which has ended, ever read it.
 */
extern "C" {
#include "postgres.h"

#include "pg_gpu.h"
}

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "service/colcache.h"

CcShared   *PgGpuCc = NULL;
CcShared   *PgGpuCcDev[PG_GPU_MAX_DEVICES];

struct CcSeg
{
	uint64		addr = 0;
	uint64		bytes = 0;
	bool		live = false;	/* published (blocks point at it) */
	std::vector<uint32> blocks;
};

struct CcHost
{
	std::vector<int32> seg_of;
	std::vector<uint32> row_of;
	std::vector<uint16> nlp_of;
	std::vector<uint32> ext;
	std::vector<CcSeg> segs;
	std::vector<std::pair<uint64, uint64>> garbage;	/* address, bytes */
	int			readers = 0;
	uint64		tick = 0;
};

struct CcFill
{
	int			seg;
	std::vector<uint32> blocks;
	std::vector<uint16> nlp;
	std::vector<uint64> lsn;
	std::vector<uint32> row;
};

struct CcTaskState
{
	int			entry;
	uint32		gen;
	std::vector<CcFill> fills;
};

static CcHost cc_host[CC_ENTRIES];
static std::mutex cc_mu;
static uint64 cc_tick = 0;

Size
PgGpuCcShmemSize(void)
{
	return sizeof(CcShared);
}

void
PgGpuCcShmemInit(void *mem, int dev)
{
	CcShared   *cc = (CcShared *) mem;

	memset(mem, 0, sizeof(CcShared));
	cc->budget = (uint64) pg_gpu_cache_size * 1024;	/* kB */
	pg_atomic_init_u64(&cc->bytes, 0);
	pg_atomic_init_u64(&cc->evictions, 0);
	for (int i = 0; i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &cc->e[i];

		e->dev = dev;
		pg_atomic_init_u32(&e->state, CC_FREE);
		pg_atomic_init_u32(&e->gen, 0);
		pg_atomic_init_u64(&e->blocks, 0);
		pg_atomic_init_u64(&e->bytes, 0);
		pg_atomic_init_u64(&e->scans, 0);
		pg_atomic_init_u64(&e->hits, 0);
		pg_atomic_init_u64(&e->last_use, 0);
		pg_atomic_init_u32(&e->drop, 0);
	}
	for (uint32 i = 0; i < CC_POOL_BITS / 64; i++)
		pg_atomic_init_u64(&cc->bits[i], 0);
	for (uint32 i = 0; i < CC_POOL_LSNS; i++)
		pg_atomic_init_u64(&cc->lsn[i], 0);
}

void
PgGpuCcReset(void)
{
	if (PgGpuCc == NULL)
		return;
	for (int i = 0; i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];

		pg_atomic_fetch_add_u32(&e->gen, 1);
		pg_atomic_write_u32(&e->state, CC_FREE);
		pg_atomic_write_u64(&e->blocks, 0);
		pg_atomic_write_u64(&e->bytes, 0);
		pg_atomic_write_u32(&e->drop, 0);
	}
	for (uint32 i = 0; i < CC_POOL_BITS / 64; i++)
		pg_atomic_write_u64(&PgGpuCc->bits[i], 0);
	for (uint32 i = 0; i < CC_POOL_LSNS; i++)
		pg_atomic_write_u64(&PgGpuCc->lsn[i], 0);
	pg_atomic_write_u64(&PgGpuCc->bytes, 0);
}

/* ---- under cc_mu ---------------------------------------------------------- */

static void
cc_set_bit(const CcEntry *e, uint32 blk, bool on)
{
	uint32		b = e->bit_off + blk;
	uint64		m = (uint64) 1 << (b % 64);

	if (on)
		pg_atomic_fetch_or_u64(&PgGpuCc->bits[b / 64], m);
	else
		pg_atomic_fetch_and_u64(&PgGpuCc->bits[b / 64], ~m);
}

/*
 * A segment's memory goes: at once when no task reads the entry, or when the
 * segment was never published (only its filling task, which has ended, read
 * it); else when the last reader detaches.  Only cc_publish drops a published
 * segment under readers, and it reserves the garbage's room first: this never
 * allocates.
 */
static void
cc_free_mem(int i, uint64 addr, uint64 bytes, bool unpublished)
{
	CcEntry    *e = &PgGpuCc->e[i];
	CcHost	   &h = cc_host[i];

	pg_atomic_sub_fetch_u64(&PgGpuCc->bytes, bytes);
	pg_atomic_sub_fetch_u64(&e->bytes, bytes);
	if (h.readers > 0 && !unpublished)
	{
		Assert(h.garbage.size() < h.garbage.capacity());
		h.garbage.emplace_back(addr, 0);
	}
	else
		pg_gpu_cache_free(addr, e->key.emulate);
}

/* Segment s of entry i goes: its blocks are no longer cached. */
static void
cc_drop_seg(int i, int s)
{
	CcEntry    *e = &PgGpuCc->e[i];
	CcHost	   &h = cc_host[i];
	CcSeg	   &g = h.segs[s];
	uint64		n = 0;

	if (g.addr == 0)
		return;
	for (uint32 b : g.blocks)
		if (h.seg_of[b] == s)
		{
			h.seg_of[b] = -1;
			cc_set_bit(e, b, false);
			n++;
		}
	pg_atomic_sub_fetch_u64(&e->blocks, n);
	cc_free_mem(i, g.addr, g.bytes, !g.live);
	g = CcSeg();
}

/* An entry's bits and VM LSNs in the shared pools, cleared. */
static void
cc_clear_pools(const CcEntry *e)
{
	for (uint32 b = 0; b < e->cap_blocks; b += 64)
		pg_atomic_write_u64(&PgGpuCc->bits[(e->bit_off + b) / 64], 0);
	for (uint32 v = 0; v < e->nvm; v++)
		pg_atomic_write_u64(&PgGpuCc->lsn[e->lsn_off + v], 0);
}

static void
cc_drop_entry(int i)
{
	CcEntry    *e = &PgGpuCc->e[i];
	CcHost	   &h = cc_host[i];

	Assert(h.readers == 0);
	for (size_t s = 0; s < h.segs.size(); s++)
		cc_drop_seg(i, (int) s);
	for (auto &g : h.garbage)
		pg_gpu_cache_free(g.first, e->key.emulate);
	cc_clear_pools(e);
	h = CcHost();
	pg_atomic_write_u64(&e->blocks, 0);
	pg_atomic_write_u32(&e->drop, 0);
	pg_atomic_fetch_add_u32(&e->gen, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&e->state, CC_FREE);
}

/* Drop the least recently used idle entries (not keep) until need fits. */
static bool
cc_make_room(uint64 need, int keep)
{
	while (pg_atomic_read_u64(&PgGpuCc->bytes) + need > PgGpuCc->budget)
	{
		int			victim = -1;

		for (int i = 0; i < CC_ENTRIES; i++)
			if (i != keep && pg_atomic_read_u32(&PgGpuCc->e[i].state) == CC_LIVE &&
				cc_host[i].readers == 0 && pg_atomic_read_u64(&PgGpuCc->e[i].bytes) > 0 &&
				(victim < 0 || cc_host[i].tick < cc_host[victim].tick))
				victim = i;
		if (victim < 0)
			return false;
		cc_drop_entry(victim);
		pg_atomic_fetch_add_u64(&PgGpuCc->evictions, 1);
	}
	return true;
}

/* A free range of n units in a pool of cap, given the live entries' ranges. */
static bool
cc_pool_find(bool bits, uint32 n, uint32 cap, uint32 *off)
{
	std::vector<std::pair<uint32, uint32>> used;

	for (int i = 0; i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];

		if (pg_atomic_read_u32(&e->state) != CC_LIVE)
			continue;
		if (bits)
			used.emplace_back(e->bit_off, (e->cap_blocks + 63) / 64 * 64);
		else
			used.emplace_back(e->lsn_off, e->nvm);
	}
	std::sort(used.begin(), used.end());
	uint32		at = 0;

	for (auto &u : used)
	{
		if (u.first >= at + n)
			break;
		at = std::max(at, u.first + u.second);
	}
	if (at + n > cap)
		return false;
	*off = at;
	return true;
}

static int
cc_col_of(const pg_gpu_cc_layout *l, int attidx)
{
	for (int c = 0; c < l->ncols; c++)
		if (l->cols[c].attidx == attidx)
			return c;
	return -1;
}

/* A new entry for req (its columns: want's); -1 when there is no room. */
static int
cc_create(const CcRequest *req, const pg_gpu_cc_layout *want)
{
	uint32		cap = req->nblocks + req->nblocks / 8 + 64;
	uint32		nvm = (cap + CC_VM_BLOCKS - 1) / CC_VM_BLOCKS;
	int			slot = -1;
	uint32		bit_off = 0,
				lsn_off = 0;

	if (cap > CC_POOL_BITS / 2)
		return -1;
	for (int tries = 0; tries <= CC_ENTRIES; tries++)
	{
		slot = -1;
		for (int i = 0; i < CC_ENTRIES && slot < 0; i++)
			if (pg_atomic_read_u32(&PgGpuCc->e[i].state) == CC_FREE)
				slot = i;
		if (slot >= 0 && cc_pool_find(true, (cap + 63) / 64 * 64, CC_POOL_BITS, &bit_off) &&
			cc_pool_find(false, nvm, CC_POOL_LSNS, &lsn_off))
			break;
		slot = -1;
		/* no slot or no room in the pools: the least recently used idle entry goes */
		int			victim = -1;

		for (int i = 0; i < CC_ENTRIES; i++)
			if (pg_atomic_read_u32(&PgGpuCc->e[i].state) == CC_LIVE && cc_host[i].readers == 0 &&
				(victim < 0 || cc_host[i].tick < cc_host[victim].tick))
				victim = i;
		if (victim < 0)
			return -1;
		cc_drop_entry(victim);
		pg_atomic_fetch_add_u64(&PgGpuCc->evictions, 1);
	}
	if (slot < 0)
		return -1;

	CcEntry    *e = &PgGpuCc->e[slot];
	CcHost		nh;

	/* the block arrays first: a bad_alloc leaves the slot free and untouched */
	nh.seg_of.assign(cap, -1);
	nh.row_of.assign(cap, 0);
	nh.nlp_of.assign(cap, 0);
	nh.ext.assign(cap, 0);
	e->key = req->key;
	e->layout = *want;
	e->cap_blocks = cap;
	Assert(bit_off % 64 == 0);
	e->bit_off = bit_off;
	e->lsn_off = lsn_off;
	e->nvm = nvm;
	pg_atomic_write_u64(&e->blocks, 0);
	pg_atomic_write_u64(&e->bytes, 0);
	pg_atomic_write_u64(&e->scans, 0);
	pg_atomic_write_u64(&e->hits, 0);
	pg_atomic_write_u32(&e->drop, 0);
	cc_clear_pools(e);
	cc_host[slot] = std::move(nh);
	pg_atomic_fetch_add_u32(&e->gen, 1);
	pg_write_barrier();
	pg_atomic_write_u32(&e->state, CC_LIVE);
	return slot;
}

static bool
cc_same_key(const CcKey *a, const CcKey *b)
{
	return a->db == b->db && a->relid == b->relid && RelFileNodeEquals(a->node, b->node) &&
		a->emulate == b->emulate;
}

/* ---- the tasks' calls ------------------------------------------------------ */

CcTaskState *
PgGpuCcAttach(const CcRequest *req, pg_gpu_agg_task *task, int *entry, uint32 *gen)
{
	*entry = -1;
	task->cc = 0;
	if (!req->want)
		return NULL;

	/* allocated before anything changes: the reader count is taken last */
	std::unique_ptr<CcTaskState> ts(new CcTaskState());
	std::lock_guard<std::mutex> lock(cc_mu);
	pg_gpu_cc_layout want = req->layout;
	int			i = -1;

	if (!req->want || PgGpuCc == NULL || PgGpuCc->budget == 0 || task->sort || task->collect ||
		task->gather || task->cache_fill || task->pages_resident ||
		task->ncols > PG_GPU_CC_MAX_COLS)
		return NULL;
	for (int k = 0; k < CC_ENTRIES && i < 0; k++)
		if (pg_atomic_read_u32(&PgGpuCc->e[k].state) == CC_LIVE &&
			cc_same_key(&PgGpuCc->e[k].key, &req->key))
			i = k;
	if (i >= 0)
	{
		CcEntry    *e = &PgGpuCc->e[i];
		bool		covers = !pg_atomic_read_u32(&e->drop);

		for (int c = 0; c < want.ncols && covers; c++)
			covers = cc_col_of(&e->layout, want.cols[c].attidx) >= 0;
		if (!covers)
		{
			/* more columns: the entry is made again with both sets, if idle */
			if (cc_host[i].readers > 0)
				return NULL;
			for (int c = 0; c < e->layout.ncols; c++)
				if (cc_col_of(&want, e->layout.cols[c].attidx) < 0 && want.ncols < PG_GPU_CC_MAX_COLS)
				{
					want.cols[want.ncols] = e->layout.cols[c];
					want.nullable[want.ncols] = e->layout.nullable[c];
					want.ncols++;
				}
			cc_drop_entry(i);
			i = -1;
		}
	}
	if (i < 0)
	{
		/*
		 * An entry of the same table under an older relfilenode (TRUNCATE,
		 * VACUUM FULL, a rewrite) is never read again: it goes now, if idle.
		 */
		for (int k = 0; k < CC_ENTRIES; k++)
		{
			CcEntry    *o = &PgGpuCc->e[k];

			if (pg_atomic_read_u32(&o->state) == CC_LIVE && o->key.db == req->key.db &&
				o->key.relid == req->key.relid && o->key.emulate == req->key.emulate &&
				cc_host[k].readers == 0)
				cc_drop_entry(k);
		}
		/* columns sorted by attribute, as deform_tuple walks them */
		for (int a = 1; a < want.ncols; a++)
			for (int b = a; b > 0 && want.cols[b - 1].attidx > want.cols[b].attidx; b--)
			{
				std::swap(want.cols[b - 1], want.cols[b]);
				std::swap(want.nullable[b - 1], want.nullable[b]);
			}
		if ((i = cc_create(req, &want)) < 0)
			return NULL;
	}

	CcEntry    *e = &PgGpuCc->e[i];

	for (int c = 0; c < task->ncols; c++)
	{
		int			k = cc_col_of(&e->layout, task->cols[c].attidx);

		if (k < 0)
			return NULL;
		task->cc_col[c] = (int8) k;
	}
	cc_host[i].readers++;
	cc_host[i].tick = ++cc_tick;
	task->cc = 1;
	*entry = i;
	*gen = pg_atomic_read_u32(&e->gen);
	ts->entry = i;
	ts->gen = *gen;
	return ts.release();
}

static bool
cc_fail(pg_gpu_error *err, const char *msg)
{
	err->status = PG_GPU_CUDA_ERROR;
	strlcpy(err->message, msg, sizeof(err->message));
	return false;
}

bool
PgGpuCcChunk(CcTaskState *ts, pg_gpu_agg_slot *buf, int npages, const uint32 *blk,
			 const uint64 *fill_lsn, const SvcRun *runs, int nruns, bool fail_alloc,
			 pg_gpu_error *err)
{
	std::lock_guard<std::mutex> lock(cc_mu);
	CcEntry    *e = &PgGpuCc->e[ts->entry];
	CcHost	   &h = cc_host[ts->entry];
	pg_gpu_cc_chunk *cc = buf->cc;

	cc->nranges = 0;
	cc->fill_seg = 0;
	if (pg_atomic_read_u32(&e->gen) != ts->gen || nruns < 0 || nruns > SVC_MAX_RUNS)
		return cc_fail(err, "the GPU cache entry changed under the scan");

	/* cached runs: a few row ranges each */
	for (int r = 0; r < nruns; r++)
	{
		const SvcRun &run = runs[r];
		uint32		v = run.first / CC_VM_BLOCKS;
		uint64		end = (uint64) run.first + run.count;

		if (run.count == 0 || end > e->cap_blocks || (end - 1) / CC_VM_BLOCKS != v ||
			cc_vm_lsn(e, v) != run.lsn)
			return cc_fail(err, "the GPU cache changed under the scan");
		for (uint32 b = run.first; b < end;)
		{
			int			s = h.seg_of[b];

			if (s < 0)
				return cc_fail(err, "the GPU cache changed under the scan");
			uint32		n = (uint32) std::min<uint64>(h.ext[b], end - b);
			uint32		last = b + n - 1;
			uint64		r0 = h.row_of[b];
			uint64		r1 = (uint64) h.row_of[last] + h.nlp_of[last];
			pg_gpu_cc_range *prev = cc->nranges > 0 ? &cc->ranges[cc->nranges - 1] : NULL;

			if (prev && prev->seg == h.segs[s].addr && prev->row + prev->nrows == r0)
				prev->nrows += r1 - r0;
			else
			{
				if (cc->nranges >= PG_GPU_CC_MAX_RANGES)
					return cc_fail(err, "too many cached ranges in one chunk");
				cc->ranges[cc->nranges++] = {h.segs[s].addr, r0, r1 - r0};
			}
			b += n;
		}
	}

	/* pages to fill: all-visible ones not cached under their VM page's LSN */
	uint64		rows = 0;
	CcFill		f;

	for (int p = 0; p < npages; p++)
	{
		uint32		b = blk[p];

		cc->fill_row[p] = UINT64_MAX;
		if (fill_lsn[p] == 0 || b >= e->cap_blocks ||
			cc_vm_lsn(e, b / CC_VM_BLOCKS) > fill_lsn[p] ||
			(h.seg_of[b] >= 0 && cc_vm_lsn(e, b / CC_VM_BLOCKS) == fill_lsn[p]))
			continue;
		cc->fill_row[p] = rows;
		f.blocks.push_back(b);
		f.nlp.push_back(buf->refs[p].nlp);
		f.lsn.push_back(fill_lsn[p]);
		f.row.push_back((uint32) rows);
		rows += buf->refs[p].nlp;
	}
	if (rows == 0)
		return true;

	/* room in the lists first: once the segment is allocated nothing throws */
	if (fail_alloc)
		throw std::bad_alloc();	/* pg_gpu.debug_service_fault = alloc */
	h.segs.reserve(h.segs.size() + 1);
	ts->fills.reserve(ts->fills.size() + 1);

	pg_gpu_cc_seg hdr;
	uint64		bytes = pg_gpu_cc_seg_layout(&e->layout, rows, 0, &hdr);
	uint64		addr = 0;
	pg_gpu_error aerr;

	if (!cc_make_room(bytes, ts->entry) ||
		pg_gpu_cache_alloc(bytes, e->key.emulate, &addr, &aerr) != PG_GPU_OK)
	{
		for (int p = 0; p < npages; p++)
			cc->fill_row[p] = UINT64_MAX;
		return true;			/* no room: the pages are read as pages */
	}
	pg_atomic_add_fetch_u64(&PgGpuCc->bytes, bytes);
	pg_atomic_add_fetch_u64(&e->bytes, bytes);
	CcSeg		g;

	g.addr = addr;
	g.bytes = bytes;
	f.seg = (int) h.segs.size();
	h.segs.push_back(std::move(g));
	cc->fill_seg = addr;
	cc->fill_rows = rows;
	cc->fill_layout = &e->layout;
	ts->fills.push_back(std::move(f));
	return true;
}

/* A finished task's fill becomes cached blocks (see the file's header). */
static void
cc_publish(int i, CcFill &f)
{
	CcEntry    *e = &PgGpuCc->e[i];
	CcHost	   &h = cc_host[i];
	std::vector<uint32> kept;
	uint64		n = 0;

	/* room first (a bad_alloc here changes nothing): each segment drops once */
	kept.reserve(f.blocks.size());
	h.garbage.reserve(h.garbage.size() + h.segs.size());
	for (size_t k = 0; k < f.blocks.size(); k++)
	{
		uint32		b = f.blocks[k];
		uint32		v = b / CC_VM_BLOCKS;
		uint64		cur = cc_vm_lsn(e, v);

		if (cur < f.lsn[k])
		{
			/* the VM page moved on: what was cached under it may be stale */
			uint32		lo = v * CC_VM_BLOCKS;
			uint32		hi = std::min<uint32>(e->cap_blocks, lo + CC_VM_BLOCKS);

			/*
			 * This fill's own blocks kept so far under that VM page were read
			 * under the older LSN: they go too (dropping the fill's segment
			 * itself would leave them pointing at freed memory).
			 */
			for (uint32 x = lo; x < hi; x++)
				if (h.seg_of[x] == f.seg)
					h.seg_of[x] = -1;
				else if (h.seg_of[x] >= 0)
					cc_drop_seg(i, h.seg_of[x]);
			kept.erase(std::remove_if(kept.begin(), kept.end(),
									  [v](uint32 x) { return x / CC_VM_BLOCKS == v; }),
					   kept.end());
			pg_atomic_write_u64(&PgGpuCc->lsn[e->lsn_off + v], f.lsn[k]);
		}
		else if (cur > f.lsn[k] || h.seg_of[b] >= 0)
			continue;
		h.seg_of[b] = f.seg;
		h.row_of[b] = f.row[k];
		h.nlp_of[b] = f.nlp[k];
		kept.push_back(b);
	}
	CcSeg	   &g = h.segs[f.seg];

	if (kept.empty())
	{
		cc_free_mem(i, g.addr, g.bytes, true);
		g = CcSeg();
		return;
	}
	for (size_t k = kept.size(); k-- > 0;)
	{
		uint32		b = kept[k];

		h.ext[b] = 1;
		if (k + 1 < kept.size() && kept[k + 1] == b + 1 &&
			h.row_of[b + 1] == h.row_of[b] + h.nlp_of[b])
			h.ext[b] = h.ext[b + 1] + 1;
	}
	g.live = true;
	g.blocks = std::move(kept);
	pg_write_barrier();
	for (uint32 b : g.blocks)
	{
		cc_set_bit(e, b, true);
		n++;
	}
	pg_atomic_add_fetch_u64(&e->blocks, n);
}

void
PgGpuCcDetach(CcTaskState *ts, bool publish)
{
	if (ts == NULL)
		return;
	{
		std::lock_guard<std::mutex> lock(cc_mu);
		int			i = ts->entry;
		CcEntry    *e = &PgGpuCc->e[i];
		CcHost	   &h = cc_host[i];

		if (pg_atomic_read_u32(&e->gen) == ts->gen)
		{
			for (CcFill &f : ts->fills)
			{
				bool		done = false;

				if (publish)
				{
					try
					{
						cc_publish(i, f);
						done = true;
					}
					catch (const std::bad_alloc &)
					{
						/* no room to publish it: the fill goes, as a failed task's */
					}
				}
				if (!done)
				{
					CcSeg	   &g = h.segs[f.seg];

					cc_free_mem(i, g.addr, g.bytes, true);
					g = CcSeg();
				}
			}
			if (--h.readers == 0)
			{
				for (auto &g : h.garbage)
					pg_gpu_cache_free(g.first, e->key.emulate);
				h.garbage.clear();
			}
		}
	}
	delete ts;
}

void
PgGpuCcMaintain(void)
{
	std::lock_guard<std::mutex> lock(cc_mu);

	if (PgGpuCc == NULL)
		return;
	for (int i = 0; i < CC_ENTRIES; i++)
	{
		CcEntry    *e = &PgGpuCc->e[i];

		if (pg_atomic_read_u32(&e->state) == CC_LIVE && pg_atomic_read_u32(&e->drop) &&
			cc_host[i].readers == 0)
			cc_drop_entry(i);
	}
	(void) cc_make_room(0, -1);
}
