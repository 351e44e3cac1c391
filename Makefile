# pg_gpu — PGXS build.  nvcc compiles cuda/ into a static library linked with
# -lcudart_static, so pg_gpu.so loads on machines without a GPU driver.  Without
# nvcc the engine is compiled out (cuda/engine/engine_stub.cpp) and the build says so.

MODULE_big = pg_gpu
EXTENSION  = pg_gpu
DATA       = pg_gpu--0.1.sql pg_gpu--0.1--0.2.sql pg_gpu--0.2--0.3.sql pg_gpu--0.3--0.4.sql pg_gpu--0.4--0.5.sql
PGFILEDESC = "pg_gpu - GPU offload for analytic SQL"

# sources one folder deep at most (src/<zone>/, cuda/<operator>/)
SRC_CPP  = $(wildcard src/*.cpp src/*/*.cpp)
SRC_H    = $(wildcard src/*.h src/*/*.h)
# the engine's host side, built with the host compiler (the CPU emulation among it)
HOST_SRCS = $(filter-out cuda/engine/engine_stub.cpp,$(wildcard cuda/*.cpp cuda/*/*.cpp))
HOST_OBJS = $(HOST_SRCS:.cpp=.o)
CUDA_H    = $(wildcard cuda/*.cuh cuda/*.h cuda/*/*.cuh cuda/*/*.h)
OBJS     = $(SRC_CPP:.cpp=.o) $(HOST_OBJS)

REGRESS      = agg_basic agg_distinct agg_special agg_numeric expr_extract agg_visibility agg_stream agg_fallback agg_explain agg_where agg_group gpu_aggs agg_text expr_text sort_basic sort_more sort_numeric sort_slot join_set join_slot join_rows join_ne dict table_cache plan_parallel sort_cursor join_placeholder plan_rescan agg_overflow guc_privileges star_join case_numeric agg_having agg_left_join agg_initplan decorrelate service service_faults colcache cancel_latency extension_update
REGRESS_OPTS = --inputdir=. --outputdir=tmp/regress --load-extension=pg_gpu

PG_CONFIG ?= $(shell command -v pg_config >/dev/null 2>&1 && pg_config --version | grep -q ' 15' && echo pg_config || echo /usr/lib/postgresql/15/bin/pg_config)

CUDA_HOME  ?= /usr/local/cuda
NVCC       ?= $(shell command -v nvcc 2>/dev/null || (test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc))
CUDA_ARCHS ?= 90
NVCC_GENCODE = $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
               -gencode=arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
# --fmad=false: no fused multiply-add, so per-thread float arithmetic rounds as
# PostgreSQL's does on x86-64.
# --default-stream per-thread: stream 0 is each host thread's own, so the GPU
# service's threads do not order their tasks' synchronous steps with each other's.
NVCC_FLAGS ?= -std=c++17 -O3 --fmad=false --default-stream per-thread $(NVCC_GENCODE) \
              -Xcompiler -fPIC -Xcompiler -fvisibility=hidden -Xcompiler -Wall

CUDA_SRCS = $(wildcard cuda/*.cu cuda/*/*.cu)
CUDA_OBJS = $(CUDA_SRCS:.cu=.o)
ENGINE_LIB = cuda/libpg_gpu_engine.a

ifneq ($(NVCC),)
ENGINE_OBJS = $(CUDA_OBJS)
SHLIB_LINK += $(ENGINE_LIB) -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread
ENGINE_NOTE = pg_gpu: building the GPU engine with $(NVCC) (archs: $(CUDA_ARCHS))
else
ENGINE_OBJS = cuda/engine/engine_stub.o
SHLIB_LINK += $(ENGINE_LIB)
ENGINE_NOTE = pg_gpu: nvcc not found - building without the GPU engine (CPU plans only)
endif
SHLIB_LINK += -lstdc++

PG_CPPFLAGS  = -I$(CURDIR)/cuda -I$(CURDIR)/src '-DPGDLLEXPORT=__attribute__((visibility("default")))'
PG_CXXFLAGS  = -std=gnu++17 -fvisibility=hidden -Wno-missing-field-initializers -Wno-register
ifdef WERROR
PG_CXXFLAGS += -Werror
endif
EXTRA_CLEAN  = $(ENGINE_LIB) cuda/*.o cuda/*/*.o test/engine_test bench/dict_bench tmp/regress

# make installcheck is ours (scripts/installcheck.sh), not PGXS's
NO_INSTALLCHECK = 1

# The GPU host has no clang: no LLVM bitcode.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
# Goals that run scripts (which install what is missing, then call make again)
# work before PostgreSQL's headers are there; building does not.
SCRIPT_GOALS = deps test demo demo-stop deb fuzz cachecheck pgcheck gpucheck ssb tpch tpchgen bench installcheck shardcheck shard
ifeq ($(PGXS),)
ifneq ($(filter-out $(SCRIPT_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error pg_gpu: no PostgreSQL 15 pg_config at '$(PG_CONFIG)': install postgresql-server-dev-15 (make deps) or give PG_CONFIG=/path/to/pg_config)
endif
else
include $(PGXS)
endif

$(shlib): $(ENGINE_LIB)

$(ENGINE_LIB): $(ENGINE_OBJS)
	@echo "$(ENGINE_NOTE)"
	rm -f $@ && ar rcs $@ $^

# (Makefile too: a change of NVCC_FLAGS rebuilds every object with the new flags)
cuda/%.o: cuda/%.cu $(CUDA_H) Makefile
	$(NVCC) $(NVCC_FLAGS) -Icuda -c $< -o $@

cuda/%.o: cuda/%.cpp $(CUDA_H)
	$(CXX) -std=c++17 -O2 -fPIC -fvisibility=hidden -Wall -Icuda -c $< -o $@

$(SRC_CPP:.cpp=.o): $(SRC_H) cuda/pg_gpu_engine.h cuda/pg_gpu_engine_sets.h cuda/pg_gpu_layout.h

# ---- tests ---------------------------------------------------------------
# Engine unit tests: no database; on a machine without a GPU they check the
# CPU reference and the state arithmetic, and say the kernels were skipped.
# One file per operator (test/*_test.cu) around test/engine_test.cu's main.
TEST_SRCS = $(wildcard test/*.cu)
TEST_H    = $(wildcard test/*.h)
ifneq ($(NVCC),)
test/engine_test: $(TEST_SRCS) $(TEST_H) $(ENGINE_LIB) $(HOST_OBJS)
	$(NVCC) $(NVCC_FLAGS) -Icuda $(TEST_SRCS) $(HOST_OBJS) $(ENGINE_LIB) -o $@ -lcudart_static -lrt -ldl -lpthread
# the dictionary benchmark (bench/dict_bench.cu; GPU host)
bench/dict_bench: bench/dict_bench.cu $(ENGINE_LIB) $(HOST_OBJS)
	$(NVCC) $(NVCC_FLAGS) -Icuda $< $(HOST_OBJS) $(ENGINE_LIB) -o $@ -lcudart_static -lrt -ldl -lpthread
else
test/engine_test: $(TEST_SRCS) $(TEST_H) $(HOST_OBJS) $(ENGINE_LIB)
	$(CXX) -std=c++17 -O2 -DPG_GPU_NO_CUDA -Icuda -x c++ $(TEST_SRCS) -x none $(HOST_OBJS) $(ENGINE_LIB) -o $@
endif

.PHONY: deps test unittest installcheck gpucheck pgcheck demo demo-stop bench fuzz cachecheck ssb tpch tpchgen deb shardcheck shard
deps:
	@scripts/deps.sh

unittest: test/engine_test
	test/engine_test

# make test: build, engine unit tests, pg_regress on a throwaway preloaded cluster,
# then PostgreSQL's own regression files (pgcheck) and 300 random differential
# queries with a new seed (fuzz), both with the engine emulated on the CPU.  One
# line a stage and a verdict (scripts/test.sh; logs in tmp/test-logs/); V=1 shows
# everything.
test: deps
	@V=$(V) scripts/test.sh

# On the GPU host (after `source .gpuhost/pg-up` and make install): the regression
# suite with every fallback of a query meant for the GPU turned into a warning,
# then a check of pg_gpu_stats.
gpucheck:
	scripts/gpucheck.sh

# PostgreSQL 15's own regression files (fetched into .pgregress/), each run with
# pg_gpu off and forced; the outputs must match (scripts/pgcheck.sh).  Without a GPU
# on a throwaway cluster with the engine emulated; PGCHECK_EXISTING=1 on the GPU host.
pgcheck:
	scripts/pgcheck.sh

# The Debian package postgresql-15-pg-gpu in tmp/deb/ (scripts/deb.sh; installs
# debhelper and postgresql-server-dev-all if missing).  make test builds it too,
# installs it, and runs the regression suite against it.
deb: deps
	@scripts/deb.sh

demo: deps
	@$(MAKE) -s all
	@scripts/demo.sh

# the cluster make demo leaves running
demo-stop:
	@scripts/demo.sh --stop

bench:
	bench/run.sh

# The Star Schema Benchmark against a running server (bench/ssb/ssb.py; the GPU host:
# SSB="--sf 10" scripts/gpuhost_run.sh).  SSB_ARGS="--sf 1 --serial" and the like.
ssb:
	python3 bench/ssb/ssb.py $(SSB_ARGS)

# TPC-H against a running server (bench/tpch/tpch.py: tpchgen-cli's data, the 22
# queries with PostgreSQL's 8 workers, pg_gpu at default costs, forced, and from the
# column cache; the GPU host: TPCH="--sf 10" scripts/gpuhost_run.sh).
# TPCH_ARGS="--sf 1 --queries Q1,Q6" and the like; without a GPU add --emulate.
tpch:
	python3 bench/tpch/tpch.py $(TPCH_ARGS)

# tpchgen-cli's wheel into .tpchgen/ (git-ignored), for a machine without network (the
# GPU host): tpch.py installs it from there when tpchgen-cli is not on PATH
TPCHGEN_VERSION ?= 4.0.0
TPCHGEN_PLATFORM ?= manylinux_2_17_x86_64
tpchgen:
	python3 -m pip download --no-deps --only-binary=:all: --platform $(TPCHGEN_PLATFORM) --dest .tpchgen tpchgen-cli==$(TPCHGEN_VERSION)

# Random differential queries (scripts/fuzz.py): each run with pg_gpu off and forced,
# results and errors compared, pg_gpu_stats counting the GPU runs.  Without a GPU on a
# throwaway cluster with the engine emulated (300 queries, about a minute);
# FUZZ_ARGS="--seed N --queries N" to replay or go longer; FUZZ_EXISTING=1 on the GPU host.
fuzz:
	python3 scripts/fuzz.py $(FUZZ_ARGS)

# The GPU service's column cache read while writer sessions change its table, each
# answer against PostgreSQL's in the same snapshot (scripts/cache_writers.py)
cachecheck:
	python3 scripts/cache_writers.py $(CACHECHECK_ARGS)

# Sharded PostgreSQL (scripts/shard.sh): a coordinator and 2 postgres_fdw shards on
# throwaway clusters, SSB at scale factor 0.05, every answer against one plain
# PostgreSQL's, each shard's pg_gpu_stats proving GpuAgg ran there (emulated and
# forced without a GPU; about 15 s).  `make shard SHARD_ARGS="--engine both --sf 10
# --reps 3 --gpus 0,1"` for the benchmark (Citus too once scripts/citus_build.sh ran).
shardcheck:
	scripts/shard.sh --engine fdw --shards 2 --sf 0.05

shard:
	scripts/shard.sh $(SHARD_ARGS)

# The suite against a running server that preloads pg_gpu (libpq variables); as
# root it runs as 'postgres' (scripts/installcheck.sh), results in tmp/regress/.
installcheck:
	@scripts/installcheck.sh
