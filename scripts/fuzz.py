#!/usr/bin/env python3
"""
make fuzz — a seeded random differential query generator for pg_gpu.

Every generated query runs twice: in a session with pg_gpu.enabled = off (PostgreSQL's
own plans, the reference) and in a session with pg_gpu.force = on (every supported GPU
path taken; with pg_gpu.emulate_gpu = on the engine's code runs on the CPU, which is how
CI runs it).  Both sessions get the same planner settings per query (serial, default or
parallel-friendly costs, sometimes no hash agg/join, small work_mem); the forced one
sometimes also pg_gpu knobs (chunk_pages, direct_groups, join_batch_rows, ...).

Data (from the seed): a 40k-row fact table f (all types, extreme and special values,
NULLs everywhere, TOASTed text, dead, updated and rolled-back tuples, never vacuumed),
fv (half of it, vacuumed, HOT updates), fp (partitioned), fe (empty), dimension tables
dk (duplicates, NULLs), du (unique keys, indexed), de (empty); committed changes run
before every 20th query.  Shapes: aggregates with WHERE trees, GROUP BY/HAVING/ORDER
BY/LIMIT, sorts (WITH TIES, OFFSET), IN/EXISTS/NOT EXISTS/NOT IN/ANY/ALL subqueries and
lists ([NOT] EXISTS sometimes with a d.b <> a.x beside the key, TPC-H Q21's shape), inner/left joins, gpu_* aggregates (against the built-ins), sorts over joins and
UNION ALL, dictionaries, queries inside transactions that changed their table, PREPARE
with generic plans, scrollable cursors, and shapes pg_gpu leaves to PostgreSQL.  numeric:
n (typmod-less: NaN, +-Infinity, zeros of several scales, dscales past 8, values past 2^90
at scale 8), n2 numeric(15,2) and n4 numeric(10,4) (NaN, zeros, their extremes); fv keeps
only numerics the GPU keeps, so the numeric shape (+ - *, unary minus, int-to-numeric
casts and comparisons in WHERE and aggregate inputs, sum/avg/min/max/count, a date
against `date +- interval`) runs there, and falls back over f.

Comparison: rows as a multiset, or in order where the ORDER BY determines it (runs of
equal sort keys compared as multisets; LIMIT only with a total order or WITH TIES); float
aggregates within a tolerance derived from the magnitude of their inputs (what
PostgreSQL's own parallel plans need), everything else exactly (numeric group keys by
value: 1.0 and 1.00 are one group).  Errors: the same SQLSTATE class on both sides.  A
difference is first put to PostgreSQL itself: if one of its own plans (GPU off, other
settings) gives what the forced run gave, it is reported as plan-dependent, not as a
failure; ALLOWED_ONE_SIDED lists the other one-sided errors PostgreSQL's plans can
raise or not.  Then the query runs again in a fresh forced session, which tells
failures that earlier queries of the session caused (--minimize finds the fewest).
pg_gpu_stats (shared-memory counters) before and after each forced query count the GPU
(or emulated) executions and fallbacks per shape.

Modes
  default        a throwaway cluster (initdb under /tmp, as the user postgres when run
                 as root, shared_preload_libraries = 'pg_gpu'), emulated engine
  --existing     (or FUZZ_EXISTING=1) the server of PGHOST/PGPORT/PGUSER (the GPU host:
                 `source .gpuhost/pg-up` first); a database of its own is created and
                 dropped; the real GPU (add --emulate to emulate there too).  Other
                 sessions' GPU work would show in the pg_gpu_stats counts.

Replay: the seed is printed first and last; `--seed S --only I[,J]` runs just those
queries (each query is generated from (seed, index) alone), `--keep` keeps the cluster
(or database) afterwards and prints how to connect; `--print-sql` lists the queries.
Reports: tmp/fuzz/seed-S.md (and seed-S-data.sql, the data as a psql script, on failure).

Standard library only.  It speaks PostgreSQL's wire protocol itself rather than driving
psql: NULL and '' stay apart, every column's type and every error's SQLSTATE come with
the result, and a lost connection is seen at once.
"""
import argparse
import base64
import collections
import datetime
import decimal
import hashlib
import hmac
import json
import math
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DBL_MAX = sys.float_info.max
FLT_MAX = 3.4028234663852886e38
FLOAT_OIDS = {700: 4, 701: 8}
NUMERIC_OID = 1700
GPU_NODES = ("GpuAgg", "gpu_aggregates", "GpuSort", "GpuHashJoin", "GpuSemiJoin")


# ----------------------------------------------------------------------------
# A minimal PostgreSQL client (protocol 3, simple queries, COPY IN; trust, password,
# md5 and SCRAM-SHA-256 authentication): exact NULLs, column types and SQLSTATEs.
# ----------------------------------------------------------------------------
class ConnLost(Exception):
    pass


class Result:
    def __init__(self):
        self.cols = []        # [(name, type oid)]
        self.rows = []        # [tuple of str | None]
        self.error = None     # {'C': sqlstate, 'M': message, 'S': severity, ...}
        self.notices = []     # [message]
        self.tag = None
        self.seconds = 0.0
        self.truncated = False


def _pgpass(host, port, db, user):
    path = os.environ.get("PGPASSFILE", os.path.expanduser("~/.pgpass"))
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    for line in lines:
        if not line or line.startswith("#"):
            continue
        parts = re.split(r"(?<!\\):", line)
        if len(parts) != 5:
            continue
        parts = [p.replace("\\:", ":").replace("\\\\", "\\") for p in parts]
        want = [host if not host.startswith("/") else "localhost", str(port), db, user]
        if all(p == "*" or p == w for p, w in zip(parts[:4], want)):
            return parts[4]
    return None


class PgConn:
    MAX_ROWS = 200000

    def __init__(self, host, port, user, dbname, password=None, app="pg_gpu_fuzz"):
        self.host, self.port, self.user, self.dbname = host, int(port), user, dbname
        self.pid = self.key = None
        if host.startswith("/"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(os.path.join(host, ".s.PGSQL.%d" % self.port))
        else:
            s = socket.create_connection((host, self.port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.settimeout(120)
        self.sock = s
        self.buf = bytearray()
        self.pos = 0
        if password is None:
            password = os.environ.get("PGPASSWORD") or _pgpass(host, port, dbname, user)
        params = [("user", user), ("database", dbname), ("application_name", app),
                  ("client_encoding", "UTF8")]
        body = struct.pack("!i", 196608) + b"".join(
            k.encode() + b"\0" + v.encode() + b"\0" for k, v in params) + b"\0"
        self._send(struct.pack("!i", len(body) + 4) + body)
        self._authenticate(user, password)
        while True:
            t, p = self._msg()
            if t == b"K":
                self.pid, self.key = struct.unpack("!ii", p[:8])
            elif t == b"E":
                raise RuntimeError("connection refused: " + _fields(p).get("M", "?"))
            elif t == b"Z":
                break

    def _send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise ConnLost(str(e))

    def _fill(self, need):
        while len(self.buf) - self.pos < need:
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                raise
            except OSError as e:
                raise ConnLost(str(e))
            if not chunk:
                raise ConnLost("server closed the connection")
            if self.pos > (1 << 22):
                del self.buf[:self.pos]
                self.pos = 0
            self.buf += chunk

    def _msg(self):
        self._fill(5)
        t = bytes(self.buf[self.pos:self.pos + 1])
        ln = struct.unpack_from("!i", self.buf, self.pos + 1)[0]
        self._fill(1 + ln)
        p = bytes(self.buf[self.pos + 5:self.pos + 1 + ln])
        self.pos += 1 + ln
        return t, p

    def _out(self, t, payload):
        self._send(t + struct.pack("!i", len(payload) + 4) + payload)

    def _authenticate(self, user, password):
        while True:
            t, p = self._msg()
            if t == b"E":
                raise RuntimeError("authentication failed: " + _fields(p).get("M", "?"))
            if t != b"R":
                raise RuntimeError("unexpected message during authentication: %r" % t)
            code = struct.unpack("!i", p[:4])[0]
            if code == 0:
                return
            if code in (3, 5) and password is None:
                raise RuntimeError("the server wants a password: set PGPASSWORD or ~/.pgpass")
            if code == 3:
                self._out(b"p", password.encode() + b"\0")
            elif code == 5:
                inner = hashlib.md5((password + user).encode()).hexdigest()
                outer = hashlib.md5(inner.encode() + p[4:8]).hexdigest()
                self._out(b"p", b"md5" + outer.encode() + b"\0")
            elif code == 10:
                if password is None:
                    raise RuntimeError("the server wants a password: set PGPASSWORD or ~/.pgpass")
                self._scram(password, p[4:])
                return self._authenticate(user, password)
            else:
                raise RuntimeError("unsupported authentication method %d" % code)

    def _scram(self, password, mechs):
        if b"SCRAM-SHA-256" not in mechs.split(b"\0"):
            raise RuntimeError("no supported SASL mechanism")
        nonce = base64.b64encode(os.urandom(18)).decode()
        first_bare = "n=,r=" + nonce
        first = ("n,," + first_bare).encode()
        self._out(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first)
        t, p = self._msg()
        if t == b"E":
            raise RuntimeError("authentication failed: " + _fields(p).get("M", "?"))
        server_first = p[4:].decode()
        attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
        salted = hashlib.pbkdf2_hmac("sha256", password.encode(), base64.b64decode(attrs["s"]),
                                     int(attrs["i"]))
        client_key = hmac.new(salted, b"Client Key", "sha256").digest()
        stored = hashlib.sha256(client_key).digest()
        final_wo = "c=biws,r=" + attrs["r"]
        auth_msg = ",".join([first_bare, server_first, final_wo]).encode()
        sig = hmac.new(stored, auth_msg, "sha256").digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        self._out(b"p", (final_wo + ",p=" + base64.b64encode(proof).decode()).encode())

    def cancel(self):
        if self.pid is None:
            return
        try:
            if self.host.startswith("/"):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(os.path.join(self.host, ".s.PGSQL.%d" % self.port))
            else:
                s = socket.create_connection((self.host, self.port))
            s.sendall(struct.pack("!iiii", 16, 80877102, self.pid, self.key))
            s.close()
        except OSError:
            pass

    def query(self, sql, timeout=None, copy_data=None, accumulate=False):
        res = Result()
        t0 = time.time()
        self.sock.settimeout(timeout or 600)
        self._out(b"Q", sql.encode() + b"\0")
        cancelled = False
        while True:
            try:
                t, p = self._msg()
            except socket.timeout:
                if cancelled:
                    raise ConnLost("no answer after a cancel request")
                self.cancel()
                cancelled = True
                self.sock.settimeout(60)
                continue
            if t == b"T":
                n = struct.unpack("!h", p[:2])[0]
                off, cols = 2, []
                for _ in range(n):
                    end = p.index(b"\0", off)
                    name = p[off:end].decode()
                    off = end + 1
                    typ = struct.unpack_from("!i", p, off + 6)[0]
                    off += 18
                    cols.append((name, typ))
                if not (accumulate and res.cols):
                    res.cols, res.rows = cols, []
            elif t == b"D":
                if len(res.rows) >= self.MAX_ROWS:
                    res.truncated = True
                    continue
                n = struct.unpack("!h", p[:2])[0]
                off, row = 2, []
                for _ in range(n):
                    ln = struct.unpack_from("!i", p, off)[0]
                    off += 4
                    if ln < 0:
                        row.append(None)
                    else:
                        row.append(p[off:off + ln].decode("utf-8", "replace"))
                        off += ln
                res.rows.append(tuple(row))
            elif t == b"C":
                res.tag = p[:-1].decode()
            elif t == b"E":
                f = _fields(p)
                if res.error is None:
                    res.error = f
                if f.get("S") in ("FATAL", "PANIC"):
                    # the backend goes away after this
                    try:
                        while True:
                            self._msg()
                    except (ConnLost, socket.timeout, OSError):
                        pass
                    raise ConnLost("%s: %s" % (f.get("C"), f.get("M")))
            elif t == b"N":
                f = _fields(p)
                res.notices.append("%s: %s" % (f.get("S", "NOTICE"), f.get("M", "")))
            elif t == b"G":
                data = copy_data or b""
                for i in range(0, len(data), 1 << 16):
                    self._out(b"d", data[i:i + (1 << 16)])
                self._out(b"c", b"")
            elif t == b"Z":
                break
            # S (parameter status), I (empty query), A, n, s: ignored
        res.seconds = time.time() - t0
        return res

    def close(self):
        try:
            self._out(b"X", b"")
            self.sock.close()
        except Exception:
            pass


def _fields(p):
    out, i = {}, 0
    while i < len(p) and p[i] != 0:
        end = p.index(b"\0", i + 1)
        out[chr(p[i])] = p[i + 1:end].decode("utf-8", "replace")
        i = end + 1
    return out


# ----------------------------------------------------------------------------
# Servers: a throwaway cluster of our own, or an existing one.
# ----------------------------------------------------------------------------
def pg_bindir():
    for cfg in ([os.environ["PG_CONFIG"]] if os.environ.get("PG_CONFIG") else []) + \
            ["pg_config", "/usr/lib/postgresql/15/bin/pg_config"]:
        try:
            out = subprocess.run([cfg, "--version"], capture_output=True, text=True)
            if " 15" in out.stdout:
                return subprocess.run([cfg, "--bindir"], capture_output=True,
                                      text=True).stdout.strip()
        except OSError:
            pass
    sys.exit("fuzz: PostgreSQL 15's pg_config not found (set PG_CONFIG)")



def read_log_since(server):
    """Server log lines written since the last call (server.log, server.log_pos)."""
    try:
        with open(server.log, errors="replace") as f:
            f.seek(server.log_pos)
            text = f.read()
            server.log_pos = f.tell()
        return text
    except OSError:
        return ""

class OwnCluster:
    """initdb + pg_ctl under a temporary directory, as 'postgres' when we are root."""

    def __init__(self, keep=False, preload="pg_gpu", conf="", env=None, prefix="pg_gpu_fuzz.",
                 base=None, port=None):
        # preload: shared_preload_libraries; conf: more postgresql.conf lines;
        # env: more environment for the postmaster (CUDA_VISIBLE_DEVICES);
        # base, port: a cluster made earlier (attach)
        self.keep = keep
        self.preload, self.conf, self.env = preload, conf, env
        self.bindir = pg_bindir()
        self.root = os.geteuid() == 0
        if base is None:
            base = tempfile.mkdtemp(prefix=prefix)
            os.chmod(base, 0o755)
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
        self.base, self.host, self.port = base, base, port
        self.data = os.path.join(self.base, "data")
        self.log = os.path.join(self.base, "server.log")
        self.user = "postgres" if self.root else os.environ.get("USER") or "postgres"
        self.admin_db = "postgres"
        self.log_pos = 0

    def _run(self, args, **kw):
        if self.root:
            if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
                subprocess.run(["useradd", "-m", "postgres"], check=True)
            args = ["runuser", "-u", "postgres", "--"] + args
        return subprocess.run(args, capture_output=True, text=True, **kw)

    def start(self):
        if self.root:
            shutil.chown(self.base, "postgres")
        ok = False
        for loc in ("C.UTF-8", "C"):
            r = self._run([os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", self.user,
                           "-A", "trust", "-E", "UTF8", "--locale=" + loc, "--no-sync"])
            if r.returncode == 0:
                ok = True
                break
            self._run(["rm", "-rf", self.data])
        if not ok:
            sys.exit("fuzz: initdb failed:\n" + r.stdout + r.stderr)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("""
# pg_gpu fuzz
shared_preload_libraries = '%s'
listen_addresses = ''
unix_socket_directories = '%s'
port = %d
fsync = off
full_page_writes = off
synchronous_commit = on
autovacuum = off
shared_buffers = 256MB
max_worker_processes = 16
max_parallel_workers = 8
restart_after_crash = on
jit = off
lc_messages = 'C'
log_min_messages = warning
log_line_prefix = '%%m [%%p] '
""" % (self.preload, self.base, self.port) + self.conf + "\n")
        self.launch()

    def launch(self):
        """pg_ctl start on the data directory made by start()."""
        pg_ctl = [os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-l", self.log,
                  "-w", "-t", "120", "start"]
        if self.env:
            pg_ctl = ["env"] + ["%s=%s" % kv for kv in self.env.items()] + pg_ctl
        r = self._run(pg_ctl)
        if r.returncode != 0:
            tail = open(self.log).read()[-3000:] if os.path.exists(self.log) else ""
            sys.exit("fuzz: pg_ctl start failed:\n" + r.stdout + r.stderr + tail)

    def new_log(self):
        return read_log_since(self)

    def _pg_ctl_stop(self):
        self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", "fast", "-w",
                   "stop"])

    def restart(self, env=None):
        """The same data directory, the postmaster started again with env
        (CUDA_VISIBLE_DEVICES: another GPU for its GPU service)."""
        self._pg_ctl_stop()
        self.env = env
        self.launch()

    @classmethod
    def attach(cls, base, port, env=None):
        """A cluster left running by an earlier run (keep): its directory and port."""
        return cls(keep=True, preload="", env=env, base=base, port=port)

    def stop(self):
        self._pg_ctl_stop()
        if not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)


class ExistingServer:
    def __init__(self, log=None):
        self.host = os.environ.get("PGHOST") or "/var/run/postgresql"
        if "," in self.host:
            self.host = self.host.split(",")[0]
        self.port = int(os.environ.get("PGPORT") or 5432)
        self.user = os.environ.get("PGUSER") or os.environ.get("USER") or "postgres"
        self.admin_db = os.environ.get("PGDATABASE") or "postgres"
        self.log = log
        self.log_pos = os.path.getsize(log) if log and os.path.exists(log) else 0

    def start(self):
        pass

    def new_log(self):
        return read_log_since(self) if self.log else ""

    def stop(self):
        pass


# ----------------------------------------------------------------------------
# The data: generated in Python from the seed, loaded with COPY, then updated,
# deleted and rolled back so that pages hold dead and aborted tuples.
# ----------------------------------------------------------------------------
TEXT_SPECIAL = ["", " ", "ab", "ab ", "AB", "a", "äöü", "日本語", "o'k", "back\\slash",
                "tab\there", "new\nline", "P" * 64 + "a", "P" * 64 + "b", "P" * 64 + "a",
                "P" * 70, "Q" * 63, "zz", "~", "ZZZ"]


class Data:
    """Value pools and the rows of every table, all from the seed."""

    def __init__(self, seed, nrows):
        r = random.Random("pg_gpu-fuzz-data-%d" % seed)
        self.N = nrows
        # ordinary values; the extreme ones go into a few rows only (see below), so that
        # arithmetic overflows where a query reads those rows, not everywhere
        self.ext_i2 = [32767, -32768, -32767]
        self.ext_i4 = [2147483647, -2147483648, 2147483646, -2147483647]
        self.ext_i8 = [9223372036854775807, -9223372036854775808, -9223372036854775807]
        self.p_i2 = sorted(set(r.randint(-1000, 1000) for _ in range(1500))
                           | {0, 1, -1, 1000, -1000, 255, 256})
        self.p_i4 = sorted(set([r.randint(-100000, 100000) for _ in range(2500)]
                               + [0, 1, -1, 32767, -32768, 65536] + self.p_i2[::7]))
        self.p_i8 = sorted(set([r.randint(-10 ** 12, 10 ** 12) for _ in range(1500)]
                               + self.p_i4[::3] + [4294967296, 0]))
        self.p_text = ["k%d" % i for i in range(600)] + TEXT_SPECIAL
        base = datetime.date(2000, 1, 1)
        self.p_date = sorted(set((base + datetime.timedelta(days=r.randint(-3650, 10000))).isoformat()
                                 for _ in range(800))) + \
            ["infinity", "-infinity", "4713-01-01 BC", "5874897-12-31", "1970-01-01",
             "2000-02-29", "0001-01-01"]
        tsb = datetime.datetime(2000, 1, 1)
        self.p_ts = sorted(set(
            (tsb + datetime.timedelta(seconds=r.randint(-300000000, 900000000),
                                      microseconds=r.choice([0, 0, r.randint(0, 999999)])))
            .isoformat(" ") for _ in range(1000))) + \
            ["infinity", "-infinity", "294276-12-31 23:59:59.999999", "4713-11-24 00:00:00 BC",
             "1999-12-31 23:59:59.999999", "2000-01-01 00:00:00"]
        self.p_tz = [x + r.choice(["+00", "+05:30", "-08", "+14"]) if x[0].isdigit() and "BC" not in x
                     and not x.startswith("294276") else x for x in self.p_ts]
        self.p_tz = [x for x in self.p_tz if not x.startswith("4713")] + \
            ["294276-12-31 23:59:59.999999+00", "4713-11-24 00:00:00+00 BC"]
        nums = []
        for _ in range(700):
            k = r.choice([0, 1, 2, 5, 10])
            v = "%d" % r.randint(-10 ** 6, 10 ** 6)
            if k:
                v += ".%0*d" % (k, r.randint(0, 10 ** k - 1))
            nums.append(v)
        self.p_num = nums + ["NaN", "Infinity", "-Infinity", "0", "1.0", "1.00", "-0.000",
                             "1" + "0" * 60, "0." + "0" * 40 + "1",
                             "123456789012345678901234567890.123456789", "-1e-20"]
        # near the engine's bound: 2^90 at scale 8 (the scale of typmod-less columns) is
        # about 1.24e19, so these sum or multiply past it (the CPU's), and a few values
        # of dscale above 8 (refused: the CPU's); 1e25-ish and beyond 2^90 outright
        self.p_num += ["12379400392853802.74", "-12379400392853802.74", "9999999999999999999",
                       "1" + "0" * 25, "-9" * 1 + "9" * 24, "1237940039285380274899124224",
                       "0.000000001", "-0.0000000000001", "3.14159265358979323846",
                       "0.00", "-0.00000", "0.000000000", "99999999.99999999"]
        # numeric(15,2) and numeric(10,4): every value at its column's scale
        n2 = []
        for _ in range(500):
            v = r.choice([r.randint(-10 ** 6, 10 ** 6), r.randint(-10 ** 15 + 1, 10 ** 15 - 1),
                          r.randint(-100, 100)])
            n2.append("%s%d.%02d" % ("-" if v < 0 else "", abs(v) // 100, abs(v) % 100))
        # (a typmod'ed numeric holds NaN but no infinity)
        self.p_n2 = n2 + ["NaN", "0", "0.00", "-0.0", "0.01", "-0.01",
                          "9999999999999.99", "-9999999999999.99", "1.005", "2.675"]
        n4 = []
        for _ in range(500):
            v = r.choice([r.randint(-10 ** 5, 10 ** 5), r.randint(-10 ** 10 + 1, 10 ** 10 - 1)])
            n4.append("%s%d.%04d" % ("-" if v < 0 else "", abs(v) // 10000, abs(v) % 10000))
        self.p_n4 = n4 + ["NaN", "0", "0.0000", "-0.0001", "0.0001",
                          "999999.9999", "-999999.9999", "1.00005"]
        self.fact = [self._fact_row(r, i) for i in range(1, nrows + 1)]
        for i in r.sample(range(nrows), 20):      # rows NULL but for id
            self.fact[i] = dict({k: None for k in self.fact[i]}, id=self.fact[i]["id"])
        for i in r.sample(range(nrows), 25):      # f8big: 25 same-signed huge values
            self.fact[i]["f8big"] = 1e307
        # f8x / f4x: at most one huge finite value per sign (no order overflows a sum)
        for col, vals in (("i2", self.ext_i2), ("i4", self.ext_i4), ("i8", self.ext_i8)):
            for v in vals:
                for i in r.sample(range(nrows), 2):
                    self.fact[i][col] = v
        ids = r.sample(range(nrows), 14)
        for i, v in zip(ids, [DBL_MAX, -DBL_MAX, 1e200, -1e200, 1e150, -1e150, 5e-324, -1e-310,
                              "NaN", "-0", "Infinity", "-Infinity", 2.2250738585072014e-308, 1e-300]):
            self.fact[i]["f8x"] = v
        ids = r.sample(range(nrows), 11)
        for i, v in zip(ids, [FLT_MAX, -FLT_MAX, 1e30, -1e30, 1e-30, 1.4e-45, "NaN", "-0",
                              "Infinity", "-Infinity", 1e-40]):
            self.fact[i]["f4x"] = v
        nd = max(300, nrows // 12)
        self.dk = [self._dim_row(r, i) for i in range(1, nd + 1)]
        self.du = self._unique_dim(r, max(200, nrows // 30))
        for row, (k, k2, k8) in zip(r.sample(self.dk, 3), zip(self.ext_i4, self.ext_i2, self.ext_i8)):
            row["k"], row["k2"], row["k8"] = k, k2, k8

    def _n(self, r, p=0.03):
        return r.random() < p

    def _fact_row(self, r, i):
        c = r.choice
        row = {"id": i}
        row["g"] = None if self._n(r, 0.02) else r.randrange(7)
        row["g2"] = None if self._n(r, 0.02) else r.randrange(50)
        row["i2"] = None if self._n(r) else c(self.p_i2)
        row["i4"] = None if self._n(r) else c(self.p_i4)
        row["i8"] = None if self._n(r) else c(self.p_i8)
        x = r.random()
        if x < 0.03:
            row["f4"] = None
        elif x < 0.045:
            row["f4"] = c(["NaN", "Infinity", "-Infinity", "-0", "0", "-0"])
        else:
            row["f4"] = r.randint(-200, 200) / 4
        row["f4x"] = None if self._n(r) else round(r.uniform(-1e4, 1e4), 3)
        x = r.random()
        if x < 0.03:
            row["f8"] = None
        elif x < 0.05:
            row["f8"] = c(["NaN", "Infinity", "-Infinity", "-0", "0", "0.1", "-0.1", "1e-5"])
        elif x < 0.15:
            row["f8"] = r.randint(-100, 100)
        else:
            row["f8"] = round(r.uniform(-1e6, 1e6), c([0, 1, 3, 6]))
        row["f8x"] = None if self._n(r) else round(r.uniform(-1e3, 1e3), 2)
        row["f8big"] = None if self._n(r) else r.randint(-2000, 2000) / 2
        row["n"] = None if self._n(r) else c(self.p_num)
        row["n2"] = None if self._n(r) else c(self.p_n2)
        row["n4"] = None if self._n(r) else c(self.p_n4)
        row["d"] = None if self._n(r) else c(self.p_date)
        row["ts"] = None if self._n(r) else c(self.p_ts)
        row["tz"] = None if self._n(r) else c(self.p_tz)
        row["t"] = None if self._n(r) else c(self.p_text)
        x = r.random()
        row["v"] = None if x < 0.03 else (c(["", "ab", "ab ", "äöü", "v0 "]) if x < 0.05
                                          else "v%d" % r.randrange(800))
        x = r.random()
        row["c"] = None if x < 0.03 else (c(["", "ab", "ab  ", "x y", "c1 "]) if x < 0.05
                                          else "c%d" % r.randrange(60))
        row["b"] = None if self._n(r) else r.random() < 0.5
        x = r.random()
        if x < 0.006:
            row["tl"] = "L" * r.randint(2100, 6000)              # compressible: inline, compressed
        elif x < 0.01:
            row["tl"] = "".join(r.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#%&()*+,-./:;<=>?@[]^_{|}")
                                for _ in range(r.randint(2100, 4000)))  # incompressible: external
        else:
            row["tl"] = None if x < 0.04 else c(self.p_text)
        return row

    def _dim_row(self, r, i):
        c = r.choice
        n = lambda: self._n(r)
        return {"did": i,
                "k": None if n() else (c(self.p_i4) if r.random() < 0.9 else r.randint(-200000, 200000)),
                "k2": None if n() else c(self.p_i2),
                "k8": None if n() else c(self.p_i8),
                "kt": None if n() else c(self.p_text),
                "kv": None if n() else "v%d" % r.randrange(1600),
                "kc": None if n() else "c%d" % r.randrange(90),
                "kd": None if n() else c(self.p_date),
                "kts": None if n() else c(self.p_ts),
                "ktz": None if n() else c(self.p_tz),
                "val": None if n() else r.randint(-50, 50),
                "w": None if n() else round(r.uniform(-100, 100), 2)}

    def _unique_dim(self, r, n):
        def uniq(pool, extra):
            vals = list(dict.fromkeys(pool))
            r.shuffle(vals)
            vals = vals[:n]
            j = 0
            while len(vals) < n:
                v = extra(j)
                j += 1
                if v not in vals:
                    vals.append(v)
            return vals
        k = uniq(self.p_i4, lambda j: 300000 + j)
        k2 = uniq(range(-1000, 1001), lambda j: 2000 + j)
        k8 = uniq(self.p_i8, lambda j: 5 * 10 ** 12 + j)
        kt = uniq([x for x in self.p_text if x != "P" * 64 + "a"], lambda j: "u%d" % j)
        kv = uniq(["v%d" % x for x in range(1600)], lambda j: "w%d" % j)
        kc = uniq(["c%d" % x for x in range(90)] + ["d%d" % x for x in range(2000)], lambda j: "e%d" % j)
        kd = uniq(self.p_date, lambda j: (datetime.date(1900, 1, 1) + datetime.timedelta(days=j)).isoformat())
        kts = uniq(self.p_ts, lambda j: "1800-01-01 00:00:%02d.%06d" % (j % 60, j))
        ktz = uniq(self.p_tz, lambda j: "1800-01-01 00:00:%02d.%06d+00" % (j % 60, j))
        return [{"did": i + 1, "k": k[i], "k2": k2[i], "k8": k8[i], "kt": kt[i], "kv": kv[i],
                 "kc": kc[i], "kd": kd[i], "kts": kts[i], "ktz": ktz[i],
                 "val": r.randint(-50, 50), "w": round(r.uniform(-100, 100), 2)} for i in range(n)]


FACT_DDL = """(id int4 NOT NULL, g int4, g2 int2, i2 int2, i4 int4, i8 int8, f4 float4, f4x float4,
  f8 float8, f8x float8, f8big float8, n numeric, d date, ts timestamp, tz timestamptz,
  t text, v varchar(24), c char(8), b bool, tl text, n2 numeric(15,2), n4 numeric(10,4))"""
FACT_COLS = ["id", "g", "g2", "i2", "i4", "i8", "f4", "f4x", "f8", "f8x", "f8big", "n", "d", "ts",
             "tz", "t", "v", "c", "b", "tl", "n2", "n4"]
DIM_DDL = """(did int4 NOT NULL, k int4, k2 int2, k8 int8, kt text, kv varchar(24), kc char(6),
  kd date, kts timestamp, ktz timestamptz, val int4, w float8)"""
DIM_COLS = ["did", "k", "k2", "k8", "kt", "kv", "kc", "kd", "kts", "ktz", "val", "w"]


def copy_text(rows, cols):
    out = []
    for row in rows:
        vals = []
        for cname in cols:
            v = row[cname]
            if v is None:
                vals.append("\\N")
            elif isinstance(v, bool):
                vals.append("t" if v else "f")
            elif isinstance(v, float):
                vals.append(repr(v) if math.isfinite(v) else ("NaN" if v != v else
                                                               ("Infinity" if v > 0 else "-Infinity")))
            else:
                s = str(v)
                vals.append(s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
                            .replace("\r", "\\r"))
        out.append("\t".join(vals))
    return ("\n".join(out) + "\n").encode()


def setup_statements(data):
    """(sql, copy payload or None) in order; also written out as a psql script on failure."""
    w = "WITH (autovacuum_enabled = off)"
    n = data.N
    return [
        ("CREATE TABLE f %s %s" % (FACT_DDL, w), None),
        ("COPY f FROM STDIN", copy_text(data.fact, FACT_COLS)),
        ("CREATE TABLE dk %s %s" % (DIM_DDL, w), None),
        ("COPY dk FROM STDIN", copy_text(data.dk, DIM_COLS)),
        ("CREATE TABLE du %s %s" % (DIM_DDL, w), None),
        ("COPY du FROM STDIN", copy_text(data.du, DIM_COLS)),
        ("CREATE TABLE de %s %s" % (DIM_DDL, w), None),
        # fv: half of f, vacuumed (all-visible, frozen): the fast paths and the table cache
        ("CREATE TABLE fv %s WITH (autovacuum_enabled = off, fillfactor = 70)" % FACT_DDL, None),
        ("INSERT INTO fv SELECT * FROM f WHERE id % 2 = 0", None),
        # fv's numerics are the ones the GPU keeps (no NaN, +-Infinity, dscale above 8 or
        # huge values), so that numeric queries over fv run there; f keeps them all
        ("UPDATE fv SET n = CASE WHEN n = 'NaN' OR abs(n) >= 1e15 OR scale(n) > 8 THEN NULL "
         "ELSE n END, n2 = NULLIF(n2, 'NaN'), n4 = NULLIF(n4, 'NaN') WHERE n = 'NaN' OR "
         "abs(n) >= 1e15 OR scale(n) > 8 OR n2 = 'NaN' OR n4 = 'NaN'", None),
        ("VACUUM (FREEZE, ANALYZE) fv", None),
        # fp: partitioned (one partition vacuumed)
        ("CREATE TABLE fp %s PARTITION BY RANGE (id)" % FACT_DDL, None),
        ("CREATE TABLE fp1 PARTITION OF fp FOR VALUES FROM (MINVALUE) TO (%d) %s" % (n // 3, w), None),
        ("CREATE TABLE fp2 PARTITION OF fp FOR VALUES FROM (%d) TO (%d) %s" % (n // 3, 2 * n // 3, w), None),
        ("CREATE TABLE fpd PARTITION OF fp DEFAULT %s" % w, None),
        ("INSERT INTO fp SELECT * FROM f", None),
        ("VACUUM (ANALYZE) fp1", None),
        ("ANALYZE fp", None),
        ("CREATE INDEX ON du (k)", None),
        ("CREATE INDEX ON du (kt)", None),
        ("CREATE INDEX ON fv (id)", None),
        ("VACUUM ANALYZE du", None),
        ("CREATE TABLE fe %s %s" % (FACT_DDL, w), None),
        # the dictionaries' source: never changed (sessions made later see the same keys)
        ("CREATE TABLE ds %s AS SELECT did, kt, kc, kv FROM dk" % w, None),
        # f: dead tuples (updated and deleted rows), aborted inserts and deletes, never
        # vacuumed
        ("UPDATE f SET g = (g + 1) % 7, b = NOT b, i4 = i4 / 2, t = CASE WHEN id % 2 = 0 THEN t END "
         "WHERE id % 10 = 3", None),
        ("DELETE FROM f WHERE id % 23 = 7", None),
        ("BEGIN", None),
        ("INSERT INTO f SELECT -id, g, g2, 32767, 2147483647, 9223372036854775807, 'NaN', 1e38, "
         "1e308, 1e308, 1e308, 'NaN', 'infinity', 'infinity', 'infinity', 'ROLLED BACK', 'rb', 'rb', "
         "true, 'rb', 'NaN', 1 FROM f WHERE id % 9 = 0", None),
        ("DELETE FROM f WHERE id % 29 = 1", None),
        ("ROLLBACK", None),
        ("UPDATE f SET f8 = f8 WHERE id %% 97 = 5 AND id > %d" % (n // 2), None),
        ("ANALYZE f", None),
        # dk: dead rows, analyzed; de: empty; du: vacuumed
        ("DELETE FROM dk WHERE did % 17 = 0", None),
        ("BEGIN", None),
        ("INSERT INTO dk SELECT -did, 2147483647, 32767, 1, 'rb', 'rb', 'rb', 'infinity', 'infinity', "
         "'infinity', 1, 1 FROM dk", None),
        ("ROLLBACK", None),
        ("ANALYZE dk", None),
        ("CREATE INDEX ON dk (kt)", None),
    ]


def write_setup_script(path, data, dbname):
    with open(path, "w") as f:
        f.write("-- pg_gpu fuzz data (psql -f); database %s, a preloaded pg_gpu\n" % dbname)
        f.write("CREATE EXTENSION IF NOT EXISTS pg_gpu;\nSET synchronous_commit = on;\n")
        for sql, payload in setup_statements(data):
            f.write(sql + ";\n")
            if payload is not None:
                f.write(payload.decode() + "\\.\n")
        f.write("-- every fuzz session then creates its dictionaries (the dict shape uses them):\n")
        for name, src, kind in DICTS:
            f.write("-- SELECT pg_gpu_dict_create('%s', '%s', '%s');\n" % (name, src.replace("'", "''"), kind))
        f.write("-- and sets: TimeZone = 'UTC', DateStyle = 'ISO, MDY', extra_float_digits = 1\n")


# ----------------------------------------------------------------------------
# The query generator.  Each query comes from Random((seed, index)) alone.
# ----------------------------------------------------------------------------
class E:
    """An expression: SQL text, kind ('int', 'float', or a column kind), magnitude of its
    finite values (M), of its ordinary values (Mo, without the designated huge ones),
    whether huge values are one-signed (mono) or at most one a sign (one), float sums
    of it exact (exact)."""
    __slots__ = ("sql", "kind", "M", "Mo", "huge", "mono", "one", "exact", "width", "col")

    def __init__(self, sql, kind, M=0.0, Mo=None, huge=False, mono=True, one=True, exact=False,
                 width=8, col=None):
        self.sql, self.kind, self.M = sql, kind, M
        self.Mo = M if Mo is None else Mo
        self.huge, self.mono, self.one, self.exact, self.width, self.col = \
            huge, mono, one, exact, width, col


# name: (kind, type, M, Mo, huge, mono, one, exact)
FACT_META = {
    "id": ("int", "int4", 2.2e9, None, False, True, True, True),
    "g": ("int", "int4", 6, None, False, True, True, True),
    "g2": ("int", "int2", 49, None, False, True, True, True),
    "i2": ("int", "int2", 32768, None, False, True, True, True),
    "i4": ("int", "int4", 2.0 ** 31, None, False, True, True, True),
    "i8": ("int", "int8", 2.0 ** 63, None, False, True, True, True),
    "f4": ("float", "float4", 50, None, False, True, True, True),
    "f4x": ("float", "float4", FLT_MAX, 1e4, True, False, True, False),
    "f8": ("float", "float8", 1e6, None, False, True, True, False),
    "f8x": ("float", "float8", DBL_MAX, 1e3, True, False, True, False),
    "f8big": ("float", "float8", 1e307, 1e3, True, True, False, False),
    "n": ("numeric", "numeric", 0, None, False, True, True, True),
    "n2": ("numeric", "numeric", 0, None, False, True, True, True),
    "n4": ("numeric", "numeric", 0, None, False, True, True, True),
    "d": ("date", "date", 0, None, False, True, True, True),
    "ts": ("ts", "timestamp", 0, None, False, True, True, True),
    "tz": ("tz", "timestamptz", 0, None, False, True, True, True),
    "t": ("text", "text", 0, None, False, True, True, True),
    "v": ("text", "varchar", 0, None, False, True, True, True),
    "c": ("bpchar", "bpchar", 0, None, False, True, True, True),
    "b": ("bool", "bool", 0, None, False, True, True, True),
    "tl": ("text", "text", 0, None, False, True, True, True),
}
DIM_META = {
    "did": ("int", "int4", 1e5), "k": ("int", "int4", 2.0 ** 31), "k2": ("int", "int2", 32768),
    "k8": ("int", "int8", 2.0 ** 63), "kt": ("text", "text", 0), "kv": ("text", "varchar", 0),
    "kc": ("bpchar", "bpchar", 0), "kd": ("date", "date", 0), "kts": ("ts", "timestamp", 0),
    "ktz": ("tz", "timestamptz", 0), "val": ("int", "int4", 50), "w": ("float", "float8", 100),
}
NUMCOLS = ["g", "g2", "g2", "i2", "i2", "i4", "i4", "i4", "i8", "i8", "f4", "f4", "f4x", "f8", "f8",
           "f8", "f8x", "f8big", "id"]
INTCOLS = ["g", "g2", "i2", "i4", "i8", "id"]
FLOATCOLS = ["f4", "f4x", "f8", "f8x", "f8big"]
SORTCOLS = ["g", "g2", "i2", "i4", "i8", "f4", "f4x", "f8", "f8x", "n", "d", "ts", "tz", "t", "v",
            "c", "b", "n2", "n4"]
# (fact column, dim column) pairs a join or a key set can use; weights by repetition
KEY_PAIRS = [("i4", "k")] * 4 + [("i2", "k2"), ("i8", "k8"), ("i2", "k"), ("i4", "k8"),
                                 ("i8", "k"), ("g", "val"), ("g2", "k2")] + \
    [("t", "kt")] * 3 + [("v", "kv"), ("t", "kv"), ("c", "kc"), ("d", "kd"), ("ts", "kts"),
                         ("tz", "ktz")]
AGG_FLOAT = ["sum", "avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp",
             "var_pop"]

SHAPES = [("agg", 16), ("group", 18), ("sort", 14), ("semi", 12), ("join", 11), ("star", 8),
          ("anyarray", 6),
          ("gpu_aggs", 4), ("slot_sort", 5), ("left_join", 3), ("txn", 4), ("prepared", 4),
          ("cursor", 2), ("dict", 3), ("other", 5), ("numeric", 12), ("distinct", 10)]
# dictionaries every session creates when it starts (from ds, which never changes)
DICTS = [("w_hash", "SELECT kt FROM ds ORDER BY did", "hash"),
         ("w_trie", "SELECT kt FROM ds ORDER BY did DESC", "trie"),
         ("v_hash", "SELECT kv FROM ds ORDER BY did", "hash"),
         ("c_trie", "SELECT kc FROM ds ORDER BY did", "trie")]
# committed changes between queries (before every MUTATE_EVERY-th query index), so that
# the table cache and the all-visible fast paths meet tables that change under them
MUTATE_EVERY = 20


class Query:
    def __init__(self, idx, shape):
        self.idx, self.shape = idx, shape
        self.sql = None
        self.sql_off = None          # when the reference runs another text (gpu_* vs built-ins)
        self.tols = None             # per output column: None (exact) or dict
        self.order = None            # output column indexes of the ORDER BY keys
        self.order_float = False     # an ORDER BY key is a float aggregate (tolerance)
        self.numval = set()          # numeric outputs whose display scale may vary (1.0/1.00)
        self.multi = False           # several statements (a transaction, a cursor, PREPARE)
        self.accumulate = False      # rows of every result set (a cursor's FETCHes)
        self.explain = None          # the statement to EXPLAIN, when sql is several
        self.mutation = None         # committed change run (GPU off) before this query
        self.flags = set()
        self.settings = []           # SET ... for both sessions
        self.gpu_settings = []       # SET ... for the forced session only (pg_gpu knobs)


def lit_int(r, d, typ="int4"):
    x = r.random()
    if x < 0.55:
        v = r.choice(d.p_i4 if typ != "int2" else d.p_i2)
    elif x < 0.6:
        v = r.choice(d.ext_i2 + d.ext_i4 + (d.ext_i8 if typ == "int8" else []))
    elif x < 0.7:
        v = r.randint(-10, 10)
    elif x < 0.85:
        v = r.choice([0, 1, -1, 32767, -32768, 2147483647, -2147483648, 100, 1000, 100000])
    else:
        v = r.choice(d.p_i8 if typ == "int8" else d.p_i4)
    if typ == "int8" and r.random() < 0.3:
        v = r.choice(d.ext_i8 + [4294967296, r.choice(d.p_i8), r.choice(d.p_i8)])
    s = str(v)
    if v < 0:
        s = "(%s)" % s if r.random() < 0.5 else s
    if r.random() < 0.1:
        s += "::" + r.choice(["int2", "int8", "int4"]) if -32768 <= v <= 32767 else "::int8"
    return s


def lit_float(r, width=8):
    x = r.random()
    if x < 0.1:
        v = r.choice(["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "0.0", "1e-300", "5e-324",
                      "1e308", "-1e308"])
        if v.startswith("'") or v in ("5e-324", "1e-300", "1e308", "-1e308"):
            v += "::float%d" % (8 if width == 8 or v in ("5e-324", "1e308", "-1e308") else 4) \
                if v.startswith("'") else "::float8"
        return v
    if x < 0.5:
        v = "%d" % r.randint(-100, 100)
    elif x < 0.8:
        v = "%.2f" % r.uniform(-1e4, 1e4)
    else:
        v = "%.3f" % r.uniform(-1e6, 1e6)
    if v.startswith("-"):
        v = "(%s)" % v
    if r.random() < 0.4:
        v += "::float%d" % width
    return v


def q(s):
    return "'" + s.replace("'", "''") + "'"


def lit_text(r, d):
    x = r.random()
    if x < 0.7:
        return q(r.choice(d.p_text))
    if x < 0.85:
        return q("v%d" % r.randrange(900))
    return q(r.choice(["c%d" % r.randrange(70), "", "zzz", "k", "k1", "k99", "P" * 64, "ab ", "m"]))


def lit_for(r, d, kind, typ):
    if kind == "int":
        return lit_int(r, d, typ)
    if kind == "float":
        return lit_float(r, 4 if typ == "float4" else 8)
    if kind == "numeric":
        return r.choice(["0", "1.5", "-1000.25", "'NaN'::numeric", "'Infinity'::numeric",
                         "100000", "1e20", "0.0001", r.choice(d.p_num)
                         if r.choice(d.p_num)[0] not in "NI-" else "2"])
    if kind == "date":
        v = r.choice(d.p_date)
        return "DATE " + q(v) if r.random() < 0.8 else q(v)
    if kind == "ts":
        return "TIMESTAMP " + q(r.choice(d.p_ts))
    if kind == "tz":
        return "TIMESTAMPTZ " + q(r.choice(d.p_tz))
    if kind in ("text", "bpchar"):
        if typ == "bpchar" or kind == "bpchar":
            return q(r.choice(["c%d" % r.randrange(70), "", "ab", "ab  ", "x y", "c1"]))
        if typ == "varchar":
            return q(r.choice(["v%d" % r.randrange(900), "", "ab", "ab ", "äöü"]))
        return lit_text(r, d)
    if kind == "bool":
        return r.choice(["true", "false"])
    raise ValueError(kind)


class Gen:
    def __init__(self, seed, data):
        self.seed, self.d = seed, data
        self.N = float(data.N)

    # -- expressions --------------------------------------------------------
    def col(self, r, a, name=None, kinds=("int", "float")):
        if name is None:
            name = r.choice([c for c in FACT_META if FACT_META[c][0] in kinds])
        kind, typ, M, Mo, huge, mono, one, exact = FACT_META[name]
        return E("%s.%s" % (a, name), kind, M, Mo, huge, mono, one, exact,
                 4 if typ == "float4" else 8, col=name)

    def num(self, r, a, depth=0, want=None):
        """A numeric expression over table alias a."""
        x = r.random()
        if depth >= 2 or x < 0.55:
            if want == "int":
                return self.col(r, a, r.choice(INTCOLS))
            if want == "float":
                return self.col(r, a, r.choice(FLOATCOLS))
            return self.col(r, a, r.choice(NUMCOLS))
        if x < 0.62:
            e = self.num(r, a, depth + 1, want)
            return E("(-%s)" % e.sql, e.kind, e.M, e.Mo, e.huge, e.mono, e.one, e.exact, e.width)
        if x < 0.70:
            e = self.num(r, a, depth + 1, want)
            cast = r.choice(["int8", "float8", "int8", "float8", "float8",
                             r.choice(["int4", "float4", "int2"])] if want is None else
                            (["int8", "int8", "int4"] if want == "int" else ["float8", "float8", "float4"]))
            kind = "int" if cast.startswith("int") else "float"
            M = min(e.M, {"int2": 32768, "int4": 2.0 ** 31, "int8": 2.0 ** 63}.get(cast, e.M))
            # float8 sums of integers are exact only while they stay below 2^53: not
            # for int8 values (seed 2611, query 810: avg(i8::float8) over values near
            # 1e18 differs between any two summation orders)
            return E("(%s)::%s" % (e.sql, cast), kind, M, min(e.Mo, M), e.huge, e.mono, e.one,
                     e.exact and kind == "float" and cast != "float4" and
                     e.M * max(self.N, 1) < 2.0 ** 53, 4 if cast == "float4" else 8)
        a1 = self.num(r, a, depth + 1, want)
        if r.random() < 0.5:
            kind = a1.kind if want is None else want
            if kind == "int":
                v = r.choice(["1", "2", "3", "7", "10", "100", "0", "-1", "1000", "2", "1"])
                b = E(v, "int", abs(float(v)), exact=True)
            else:
                v = r.choice(["0.5", "2", "1.5", "0.1", "3", "1e-3", "1000", "0", "-2.5"])
                b = E(v, "float", abs(float(v)), exact=v in ("0.5", "2", "3", "0", "-2.5", "1.5"))
        else:
            b = self.num(r, a, depth + 1, want)
        ops = ["+", "-", "*", "/"] + (["%"] if a1.kind == "int" and b.kind == "int" else [])
        op = r.choice(ops)
        if op == "*" and b.col is not None and r.random() < 0.7:
            # products of two wide columns overflow on nearly every table: mostly small ones
            b = self.col(r, a, r.choice(["g", "g2", "f4", "g2"] if want != "int" else ["g", "g2"]))
        if op in "+-*" and a1.kind == "int" and a1.col in ("i2", "i4", "g", "g2", "id") \
                and r.random() < 0.5:
            a1 = E("%s::int8" % a1.sql, "int", a1.M, exact=True, col=a1.col)
        kind = "float" if "float" in (a1.kind, b.kind) else "int"
        bconst = b.col is None and not b.sql.startswith("(")
        huge_a, huge_b = a1.huge, b.huge
        if op in "+-":
            M, Mo = a1.M + b.M, a1.Mo + b.Mo
            huge = huge_a or huge_b
            mono = not (huge_a and huge_b) and (a1.mono if huge_a else b.mono)
            one = not (huge_a and huge_b) and (a1.one if huge_a else b.one)
        elif op == "*":
            M, Mo = a1.M * b.M, a1.Mo * b.Mo
            huge = huge_a or huge_b or M > 1e250
            mono = (bconst and a1.mono) or not huge
            one = (bconst and a1.one) or not huge
        elif op == "/":
            M = a1.M if kind == "int" else (a1.M * 1e3 if bconst else float("inf"))
            Mo = a1.Mo if kind == "int" else (a1.Mo * 1e3 if bconst else float("inf"))
            huge = huge_a or not bconst
            mono = bconst and a1.mono
            one = bconst and a1.one
        else:
            M, Mo, huge, mono, one = min(a1.M, b.M), min(a1.Mo, b.Mo), False, True, True
        exact = kind == "float" and a1.exact and b.exact and op in "+-" and M < 1e4
        width = 4 if a1.width == 4 and b.width == 4 and (kind == "float") and \
            ("float" == a1.kind == b.kind) else 8
        return E("(%s %s %s)" % (a1.sql, op, b.sql), kind, M, Mo, huge, mono, one, exact, width)

    def anycol(self, r, a, kinds=None):
        names = [c for c in FACT_META if kinds is None or FACT_META[c][0] in kinds]
        return self.col(r, a, r.choice(names))

    # -- predicates ---------------------------------------------------------
    def atom(self, r, a, q_):
        d = self.d
        x = r.random()
        if x < 0.03:
            # a scalar subquery's value (an InitPlan parameter, read as a task constant)
            col, sub = r.choice([
                ("n", "avg(d.val)"), ("n2", "avg(d.val) / 3"), ("n4", "max(d.val)::numeric / 7"),
                ("n", "min(d.w)::numeric"), ("i4", "max(d.k)"), ("i8", "avg(d.k8)"),
                ("f8", "avg(d.w)"), ("g", "max(d.val) - 40"), ("d", "min(d.kd)"),
                ("ts", "max(d.kts)"), ("n2", "sum(d.val)")])
            dwhere = r.choice(["", " WHERE d.did %% %d = 0" % r.randint(2, 7), " WHERE d.val > 100"])
            return "%s.%s %s (SELECT %s FROM %s d%s)" % (
                a, col, r.choice(["=", "<>", "<", "<=", ">", ">="]), sub,
                r.choice(["dk", "du", "de"]), dwhere)
        if x < 0.30:
            e = self.num(r, a, 1 if r.random() < 0.6 else 0)
            op = r.choice(["=", "<>", "<", "<=", ">", ">="])
            if r.random() < 0.25:
                e2 = self.num(r, a, 1)
                rhs = e2.sql
            else:
                rhs = lit_for(r, d, e.kind, "float4" if e.width == 4 and e.kind == "float" else
                              FACT_META.get(e.col, ("", "int4"))[1] if e.col else "int4")
            if e.kind == "int" and e.col is None and r.random() < 0.3:
                q_.flags.add("arith_where")
            return "%s %s %s" % (e.sql, op, rhs)
        if x < 0.40:
            e = self.col(r, a, r.choice(NUMCOLS + ["d", "ts", "tz", "t", "n", "n2", "n4"]))
            typ = FACT_META[e.col][1]
            lo, hi = lit_for(r, d, e.kind, typ), lit_for(r, d, e.kind, typ)
            neg = "NOT " if r.random() < 0.2 else ""
            sym = "SYMMETRIC " if r.random() < 0.1 else ""
            return "%s %sBETWEEN %s%s AND %s" % (e.sql, neg, sym, lo, hi)
        if x < 0.52:
            name = r.choice(["i2", "i4", "i8", "g", "g2", "f8", "f4", "d", "t", "v", "c", "ts", "b", "n",
                             "n2", "n4"])
            e = self.col(r, a, name)
            typ = FACT_META[name][1]
            k = r.choice([1, 2, 3, 5, r.randint(17, 40)])
            vals = [lit_for(r, d, e.kind, typ) for _ in range(k)]
            if r.random() < 0.15:
                vals[r.randrange(k)] = "NULL"
            neg = "NOT " if r.random() < 0.3 else ""
            return "%s %sIN (%s)" % (e.sql, neg, ", ".join(vals))
        if x < 0.62:
            e = self.col(r, a)
            if r.random() < 0.3:
                e = self.col(r, a, r.choice(list(FACT_META)))
            return "%s IS %sNULL" % (e.sql, "NOT " if r.random() < 0.5 else "")
        if x < 0.74:
            name = r.choice(["t", "t", "v", "c", "tl"])
            e = self.col(r, a, name)
            typ = FACT_META[name][1]
            op = r.choice(["=", "<>", "=", "<", ">=", "IN"])
            if op == "IN":
                return "%s IN (%s)" % (e.sql, ", ".join(lit_for(r, d, e.kind, typ)
                                                          for _ in range(r.randint(2, 5))))
            return "%s %s %s" % (e.sql, op, lit_for(r, d, e.kind, typ))
        if x < 0.86:
            name = r.choice(["d", "ts", "tz", "d"])
            e = self.col(r, a, name)
            return "%s %s %s" % (e.sql, r.choice(["<", ">=", "=", "<>"]),
                                 lit_for(r, d, e.kind, FACT_META[name][1]))
        if x < 0.91:
            return r.choice(["%s.b", "NOT %s.b", "%s.b IS NOT TRUE", "%s.b = true"]) % a
        if x < 0.935:
            return self.text_atom(r, a, q_)
        if x < 0.95:
            # the engine cannot run these: PostgreSQL's plan
            return r.choice(["%s.t ILIKE 'k1%'", "length(%s.t) > 2", "%s.n > 100",
                             "%s.t LIKE %s.v", "%s.t LIKE 'k\\'",
                             "%s.f8 > %s.i4"]).replace("%s", a)
        # arithmetic that may overflow or divide by zero
        q_.flags.add("arith_where")
        return r.choice([
            "%s.i4 + %s.i4 > 0", "%s.i2 * 2 > 10", "%s.i8 * 2 < 0", "100 / %s.g2 > 3",
            "%s.i4 % %s.g > 0", "%s.f8 / %s.f4 > 1", "%s.f8x * 10 > 0", "abs(%s.i4) > 5",
            "-%s.i2 > 0", "%s.i4 * %s.i4 > 100", "%s.f8 * %s.f8 < 1e10", "%s.i2 + 1::int2 > 0",
        ]).replace("%s", a)

    def like_pattern(self, r):
        """A LIKE pattern: pieces of the data's text, wildcards and escapes."""
        d = self.d
        out = []
        for _ in range(r.choice([0, 1, 2, 3, 3, 4, 5])):
            x = r.random()
            if x < 0.3:
                out.append("%")
            elif x < 0.45:
                out.append("_")
            elif x < 0.5:
                out.append(r.choice(["\\%", "\\_", "\\\\", "\\k", "%%"]))
            else:
                s = r.choice(d.p_text + ["k1", "k2", "ä", "日", "ab", "P"])
                if s:
                    i = r.randrange(len(s))
                    s = s[i:i + r.randint(1, 3)]
                out.append(s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"))
        return "".join(out)

    def text_atom(self, r, a, q_):
        """LIKE / NOT LIKE, CASE, COALESCE, NULLIF, substring: what the GPU runs lazily."""
        x = r.random()
        if x < 0.5:
            col = r.choice(["t", "t", "v", "c", "tl", "c"])
            e = "%s.%s" % (a, col)
            if r.random() < 0.15:
                e = r.choice(["substring(%s from 2 for 3)", "substr(%s, 1, 2)", "left(%s, 2)",
                              "%s::text"]) % e
            neg = "NOT " if r.random() < 0.3 else ""
            pat = self.like_pattern(r)
            if r.random() < 0.1 and "!" not in pat:
                return "%s %sLIKE %s ESCAPE '!'" % (e, neg, q(pat.replace("\\", "!")))
            return "%s %sLIKE %s" % (e, neg, q(pat))
        if x < 0.75:
            # division by zero only in the branch not taken
            return r.choice([
                "CASE WHEN %s.g2 <> 0 THEN 100 / %s.g2 > 1 ELSE %s.b END",
                "CASE WHEN %s.i4 > 0 THEN true WHEN %s.i4 < 0 THEN %s.b END",
                "CASE %s.g WHEN 0 THEN %s.t LIKE 'k%' WHEN 1 THEN false ELSE %s.i2 > 0 END",
                "CASE WHEN %s.t LIKE '%1%' THEN %s.i2 ELSE %s.g END > 0",
                "COALESCE(%s.i2, %s.g2, 0) > 3",
                "COALESCE(%s.t, %s.v) LIKE 'k_%'",
                "NULLIF(%s.g, 1) IS NULL",
                "100 / NULLIF(%s.g2, 0) > 2",
                "CASE WHEN %s.f8 > 0 THEN %s.f8 ELSE -%s.f8 END < 100",
            ]).replace("%s", a)
        e = "%s.%s" % (a, r.choice(["t", "v", "c", "tl"]))
        sub = r.choice(["substring(%s from %d for %d)" % (e, r.randint(-2, 4), r.randint(0, 3)),
                        "substr(%s, %d)" % (e, r.randint(-1, 5)), "left(%s, %d)" % (e, r.randint(0, 3))])
        if r.random() < 0.5:
            return "%s IN (%s)" % (sub, ", ".join(q(r.choice(["k1", "k", "", "ab", "äö", "日本", "1", "P"]))
                                                  for _ in range(r.randint(1, 4))))
        return "%s %s %s" % (sub, r.choice(["=", "<>"]), q(r.choice(["k1", "k", "", "ab", "ä", "PP"])))

    def pred(self, r, a, q_, depth=0):
        x = r.random()
        if depth >= 2 or x < 0.5:
            return self.atom(r, a, q_)
        if x < 0.75:
            return "(%s AND %s)" % (self.pred(r, a, q_, depth + 1), self.pred(r, a, q_, depth + 1))
        if x < 0.92:
            return "(%s OR %s)" % (self.pred(r, a, q_, depth + 1), self.pred(r, a, q_, depth + 1))
        return "NOT (%s)" % self.pred(r, a, q_, depth + 1)

    def where(self, r, a, q_, p=0.7):
        return " WHERE " + self.pred(r, a, q_) if r.random() < p else ""

    # -- aggregates ---------------------------------------------------------
    def agg(self, r, a, q_, fn=None):
        """(sql, tolerance spec) of one aggregate over alias a."""
        x = r.random()
        if fn is None:
            if x < 0.15:
                return "count(*)", None
            if x < 0.25:
                return "count(%s)" % self.anycol(r, a).sql, None
            if x < 0.29:
                return "count(DISTINCT %s)" % self.distinct_arg(r, a), None
            fn = r.choice(["min", "max", "sum", "sum", "avg", "avg"] + AGG_FLOAT[2:] + ["stddev"])
        if fn in ("min", "max") and r.random() < 0.15:
            # dates and timestamps (+-infinity among the values)
            return "%s(%s.%s)" % (fn, a, r.choice(["d", "ts", "tz"])), None
        e = self.num(r, a, 1 if r.random() < 0.65 else 0)
        if fn not in ("min", "max", "sum", "avg") and e.huge and r.random() < 0.75:
            # the spread of huge values overflows Youngs-Cramer nearly always: mostly others
            e = self.num(r, a, 1)
        if r.random() < 0.12:
            # evaluated lazily: the ELSE (or a later WHEN) is not computed where not taken
            alt = r.choice(["0", "NULL", e.sql])
            e = E("CASE WHEN %s THEN %s ELSE %s END" % (self.text_atom(r, a, q_) if r.random() < 0.5
                                                        else self.atom(r, a, q_), e.sql, alt),
                  e.kind, e.M, e.Mo, e.huge, e.mono, e.one, e.exact, e.width)
        return "%s(%s)" % (fn, e.sql), self.tol(fn, e, q_)

    def tol(self, fn, e, q_):
        if e.kind == "int" or fn in ("min", "max", "count"):
            return None
        N = self.N
        Mc = e.Mo if e.mono else e.M
        if not (e.mono or e.one) and e.huge and N * e.M > DBL_MAX / 4:
            q_.flags.add("float_order_overflow")
        if fn != "sum" and e.kind == "float" and e.M > 1e150:
            # avg and var/stddev of floats run float8_accum (Youngs-Cramer: N, Sx, Sxx):
            # over values whose squares overflow, and infinities, an overflow is raised or
            # not depending on whether an infinity came first (its rule: no error once
            # Sx is infinite), i.e. on the order of the rows
            q_.flags.add("float_order_overflow")
        exact = e.exact
        if fn == "sum":
            return {"rel": 1e-12, "abs": 0.0 if exact else 4e-16 * N ** 1.5 * Mc,
                    "exact": exact, "fn": fn}
        if fn == "avg":
            return {"rel": 1e-12, "abs": 0.0 if exact else 4e-16 * N ** 0.5 * Mc, "exact": True,
                    "fn": fn}
        v = 1e-13 * N * Mc * Mc if Mc < 1e150 else float("inf")
        if fn.startswith("var"):
            return {"rel": 1e-9, "abs": v, "exact": True, "fn": fn}
        return {"rel": 1e-9, "abs": math.sqrt(v), "exact": True, "fn": fn}

    def aggs(self, r, a, q_, k=None):
        k = k or r.choice([1, 1, 2, 3, 4, 5])
        out = []
        for _ in range(k):
            sql, t = self.agg(r, a, q_)
            if r.random() < 0.08:
                # an expression over aggregates
                c = r.choice(["2", "1", "0.5"])
                op = r.choice(["*", "+", "-"])
                sql = "%s %s %s" % (sql, op, c)
                if t is not None:
                    t = dict(t, abs=t["abs"] * (2 if op == "*" else 1))
            out.append((sql, t))
        return out

    # -- pieces -------------------------------------------------------------
    force_fact = None

    cur_fact = "f"

    def fact(self, r):
        self.cur_fact = self._fact(r)
        return self.cur_fact

    def _fact(self, r):
        if self.force_fact:
            return self.force_fact
        x = r.random()
        if x < 0.4:
            return "f"
        if x < 0.75:
            return "fv"
        if x < 0.88:
            return "fp"          # partitioned: GPU nodes over an Append / child plans
        if x < 0.9:
            return "fe"          # empty
        return r.choice(["(SELECT * FROM f WHERE id % 3 <> 0 OFFSET 0)",
                         "(SELECT * FROM fv UNION ALL SELECT * FROM f WHERE id < 300 AND id % 2 = 1)"])

    def settings(self, r, q_):
        x = r.random()
        if x < 0.3:
            s = ["max_parallel_workers_per_gather = 0"]
        elif x < 0.55:
            s = []
        else:
            s = ["max_parallel_workers_per_gather = %d" % r.choice([2, 2, 4]),
                 "parallel_setup_cost = 0", "parallel_tuple_cost = 0",
                 "min_parallel_table_scan_size = 0", "min_parallel_index_scan_size = 0"]
        if r.random() < 0.1:
            s.append("enable_hashagg = off")
        if r.random() < 0.08:
            s.append("enable_hashjoin = off")
        if r.random() < 0.08:
            s.append("work_mem = '64kB'")
        q_.settings = s
        g = []
        if r.random() < 0.15:
            g.append("pg_gpu.chunk_pages = %d" % r.choice([1, 8, 64]))
        if r.random() < 0.1:
            g.append("pg_gpu.direct_groups = off")
        if r.random() < 0.1:
            g.append("pg_gpu.join_batch_rows = %d" % r.choice([1, 100, 1000]))
        if r.random() < 0.05:
            g.append("pg_gpu.table_cache_size = 0")
        if r.random() < 0.05:
            g.append("pg_gpu.slot_sort_memory = '64kB'")
        q_.gpu_settings = g

    def sub_pred(self, r, a, q_):
        """A key-set predicate: IN / EXISTS / NOT EXISTS / NOT IN / = ANY / <> ALL subquery."""
        fc, dc = r.choice(KEY_PAIRS)
        dim = r.choice(["dk", "dk", "du", "de"])
        dwhere = ""
        if r.random() < 0.35:
            dwhere = r.choice(["d.val > %d" % r.randint(-50, 40), "d.did %% %d = 0" % r.randint(2, 5),
                               "d.w < 0", "d.kt <> 'k1'", "d.%s IS NOT NULL" % dc,
                               "d.kd > DATE '2005-01-01'", "d.kt LIKE 'k1%'"])
        x = r.random()
        key = "d.%s" % dc
        if r.random() < 0.1 and DIM_META[dc][0] == "int":
            key = r.choice(["-d.%s", "d.%s::int8 + 1", "d.%s * 2"]) % dc
            if "+ 1" not in key:
                q_.flags.add("arith_build")     # may overflow on the subquery's rows
        fx = "%s.%s" % (a, fc)
        if key.startswith("-"):
            fx = "-" + fx
        if x < 0.3:
            return "%s IN (SELECT %s FROM %s d%s)" % (fx, key, dim, " WHERE " + dwhere if dwhere else "")
        if x < 0.68:
            # a second condition d.b <> a.x (TPC-H Q21's shape): columns of integer,
            # date or timestamp types the key set decides, and ones it does not
            if r.random() < 0.3:
                ne = r.choice(["d.val <> a.g2", "a.g <> d.val", "d.val <> a.i2", "d.k2 <> a.i2",
                               "d.kd <> a.d", "a.ts <> d.kts", "d.k8 <> a.i8", "d.did %% 7 <> a.g",
                               "d.w <> a.f8", "d.kt <> a.t"])
                dwhere = "%s AND %s" % (ne, dwhere) if dwhere else ne
            return "%sEXISTS (SELECT 1 FROM %s d WHERE %s = %s%s)" % (
                "" if x < 0.5 else "NOT ", dim, key, fx, " AND " + dwhere if dwhere else "")
        if x < 0.82:
            nn = r.random() < 0.5
            conds = ([key + " IS NOT NULL"] if nn else []) + ([dwhere] if dwhere else [])
            kw = r.choice(["NOT IN", "NOT IN", "<> ALL"])
            if kw == "NOT IN":
                return "%s NOT IN (SELECT %s FROM %s d%s)" % (fx, key, dim,
                                                            " WHERE " + " AND ".join(conds) if conds else "")
            return "%s <> ALL (SELECT %s FROM %s d%s)" % (fx, key, dim,
                                                        " WHERE " + " AND ".join(conds) if conds else "")
        if x < 0.9:
            return "%s = ANY (SELECT %s FROM %s d%s)" % (fx, key, dim, " WHERE " + dwhere if dwhere else "")
        # kept as a subplan: IN under OR, or tested for NULL
        return r.choice(["(%s IN (SELECT %s FROM %s d) OR %s.id < %d)" % (fx, key, dim, a, r.randint(10, 5000)),
                         "(%s IN (SELECT %s FROM %s d)) IS NULL" % (fx, key, dim),
                         "(%s NOT IN (SELECT %s FROM %s d WHERE %s IS NOT NULL) OR %s.g = 3)" % (
                             fx, key, dim, key, a)])

    def order_clause(self, r, exprs, total_expr=None):
        """ORDER BY over the given output positions (1-based ints or SQL texts)."""
        parts = []
        for e in exprs:
            s = str(e)
            x = r.random()
            if x < 0.35:
                pass
            elif x < 0.6:
                s += " DESC"
            elif x < 0.72:
                s += " NULLS FIRST"
            elif x < 0.84:
                s += " DESC NULLS LAST"
            elif x < 0.92:
                s += " ASC NULLS LAST"
            else:
                s += " DESC NULLS FIRST"
            parts.append(s)
        if total_expr:
            parts.append(total_expr + (" DESC" if r.random() < 0.3 else ""))
        return " ORDER BY " + ", ".join(parts)

    def limit(self, r, ties_ok=False):
        x = r.random()
        n = r.choice([1, 3, 10, 25, 100, 1000])
        if x < 0.5:
            return " LIMIT %d" % n, "limit"
        if x < 0.7:
            return " LIMIT %d OFFSET %d" % (n, r.choice([0, 1, 5, 50, 3000])), "limit"
        if x < 0.8:
            return " OFFSET %d ROWS FETCH FIRST %d ROWS ONLY" % (r.choice([0, 7]), n), "limit"
        if x < 0.9 and ties_ok:
            return " FETCH FIRST %d ROWS WITH TIES" % n, "ties"
        return "", None

    # -- shapes -------------------------------------------------------------
    def make(self, idx, only_shape=None):
        r = random.Random("pg_gpu-fuzz-%d-%d" % (self.seed, idx))
        shapes = [s for s in SHAPES if only_shape is None or s[0] in only_shape]
        shape = r.choices([s for s, _ in shapes], [w for _, w in shapes])[0]
        q_ = Query(idx, shape)
        self.settings(r, q_)
        getattr(self, "shape_" + shape)(r, q_)
        if idx and idx % MUTATE_EVERY == 0:
            q_.mutation = self.mutation(random.Random("pg_gpu-fuzz-mut-%d-%d" % (self.seed, idx)),
                                        idx // MUTATE_EVERY)
        return q_

    # rows copied into the fact tables keep the data's invariants: no second huge
    # finite value of a sign in f8x / f4x, and no numeric the GPU refuses (fv's invariant;
    # f has its own from the start)
    SAFE_COPY = ("(f8x IS NULL OR abs(f8x) < 1e100) AND (f4x IS NULL OR abs(f4x) < 1e20) AND "
                 "(n IS NULL OR (n <> 'NaN' AND abs(n) < 1e15 AND scale(n) <= 8)) AND "
                 "n2 IS DISTINCT FROM 'NaN' AND n4 IS DISTINCT FROM 'NaN'")

    def dml(self, r, m, table=None):
        """One data change (as SQL) keeping every column in its value domain."""
        t = table or r.choice(["fv", "fv", "f", "dk"])
        k = r.randrange(97)
        if t == "dk":
            return r.choice([
                "DELETE FROM dk WHERE did %% 53 = %d" % (k % 53),
                "UPDATE dk SET val = val + 1, kt = CASE WHEN did %% 2 = 0 THEN kt END WHERE did %% 41 = %d" % (k % 41),
                "INSERT INTO dk SELECT did + %d, k, k2, k8, kt, kv, kc, kd, kts, ktz, val, w FROM dk "
                "WHERE did BETWEEN 1 AND %d AND did %% 67 = %d" % (10 ** 6 * (m + 1), 10 ** 6 - 1, k % 67)])
        return r.choice([
            "UPDATE %s SET g = (g + 1) %% 7, f8 = -f8, n2 = -n2, i2 = CASE WHEN i2 > -32768 THEN -i2 END, "
            "t = CASE WHEN id %% 2 = 0 THEN t END WHERE id %% 97 = %d" % (t, k),
            "DELETE FROM %s WHERE id %% 211 = %d" % (t, k),
            "INSERT INTO %s SELECT id + %d, g, g2, i2, i4, i8, f4, f4x, f8, f8x, f8big, n, d, ts, tz, t, v, c, b, tl, n2, n4 "
            "FROM f WHERE id BETWEEN 1 AND %d AND id %% 301 = %d AND %s" % (
                t, (self.d.N + 1) * (m + 1), self.d.N, k, self.SAFE_COPY),
            "UPDATE %s SET i4 = i4 / 3, c = 'mut', v = NULL WHERE id %% 89 = %d" % (t, k % 89),
        ])

    def mutation(self, r, m):
        stmts = [self.dml(r, m) for _ in range(r.randint(1, 2))]
        if r.random() < 0.4:
            stmts.append("VACUUM %s" % r.choice(["fv", "fv", "f", "dk", "fp"]))
        return stmts

    def inner(self, r, q_, shapes):
        """The query of another shape (for a transaction, PREPARE or a cursor)."""
        sub = Query(q_.idx, r.choice(shapes))
        getattr(self, "shape_" + sub.shape)(r, sub)
        for attr in ("tols", "order", "order_float", "numval", "sql_off"):
            setattr(q_, attr, getattr(sub, attr))
        q_.flags |= sub.flags
        return sub

    def shape_txn(self, r, q_):
        """The query inside a transaction that changed its table first (its own changes
        visible, pages no longer all-visible, the table cache not valid), rolled back."""
        t = r.choice(["fv", "fv", "f"])
        self.force_fact = t
        try:
            sub = self.inner(r, q_, ["agg", "group", "sort", "semi", "join", "anyarray"])
        finally:
            self.force_fact = None
        iso = r.choice(["", "", "", " ISOLATION LEVEL REPEATABLE READ", " ISOLATION LEVEL SERIALIZABLE"])
        dml = [self.dml(r, 3000 + q_.idx % 1000, t) for _ in range(r.randint(1, 2))]
        if r.random() < 0.3:
            dml.append("SAVEPOINT s1; %s; ROLLBACK TO s1" % self.dml(r, 4000 + q_.idx % 1000, t))
        q_.sql = "BEGIN%s; %s; %s; ROLLBACK" % (iso, "; ".join(dml), sub.sql)
        q_.explain = sub.sql
        q_.multi = True

    def shape_prepared(self, r, q_):
        """PREPARE with a parameter in WHERE, EXECUTE (a generic plan when
        plan_cache_mode says so: the GPU expression sees a Param)."""
        self.force_fact = r.choice(["f", "fv", "fp"])
        try:
            sub = self.inner(r, q_, ["agg", "group", "sort", "semi", "anyarray"])
        finally:
            self.force_fact = None
        d = self.d
        ptype, pred, val = r.choice([
            ("int4", "a.i4 > $1", lit_int(r, d)), ("int4", "a.g = $1", str(r.randrange(7))),
            ("int8", "a.i8 < $1", lit_int(r, d, "int8")), ("int2", "a.i2 <> $1", str(r.choice(d.p_i2))),
            ("text", "a.t = $1", lit_text(r, d)), ("text", "a.t >= $1", lit_text(r, d)),
            ("date", "a.d < $1", q(r.choice(d.p_date))), ("float8", "a.f8 > $1", lit_float(r)),
            ("int4[]", "a.i4 = ANY ($1)", "'{%s}'" % ",".join(str(r.choice(d.p_i4)) for _ in range(20))),
            ("int4", "a.g2 + $1 > 10", str(r.randint(-5, 30))),
            ("timestamptz", "a.tz >= $1", q(r.choice(d.p_tz))),
        ])
        sql = sub.sql
        m = re.search(r" (GROUP BY|ORDER BY|LIMIT|OFFSET|FETCH|HAVING)\b", sql)
        if " WHERE " in sql:
            sql = sql.replace(" WHERE ", " WHERE %s AND " % pred, 1)
        elif m and " a " in sql[:m.start()] + " ":
            sql = sql[:m.start()] + " WHERE " + pred + sql[m.start():]
        elif sql.rstrip(")").endswith(" a") or re.search(r" a$", sql):
            sql += " WHERE " + pred
        else:
            sql = sql.replace(" a ", " a WHERE %s " % pred, 1) if " a " in sql else sql
        name = "p%d" % q_.idx
        q_.sql = "PREPARE %s(%s) AS %s; %s; DEALLOCATE %s" % (
            name, ptype, sql, "; ".join(["EXECUTE %s(%s)" % (name, val)] * r.choice([1, 6])), name)
        q_.explain = None
        q_.multi = True
        q_.settings.append("plan_cache_mode = %s" % r.choice(["force_generic_plan", "auto",
                                                             "force_custom_plan"]))

    def shape_dict(self, r, q_):
        """pg_gpu_dict_contains / _lookup (probed in the page kernels of GpuAgg/GpuSort)."""
        t = self.fact(r)
        name, col = r.choice([("w_hash", "t"), ("w_trie", "t"), ("v_hash", "v"), ("w_hash", "v"),
                              ("c_trie", "c"), ("w_trie", "tl")])
        fn = "pg_gpu_dict_contains('%s', a.%s)" % (name, col)
        lk = "pg_gpu_dict_lookup('%s', a.%s)" % (name, col)
        x = r.random()
        cond = r.choice([fn, "NOT " + fn, fn + " IS NULL", lk + " < 100", lk + " IS NOT NULL"])
        if r.random() < 0.3:
            cond += " AND " + self.pred(r, "a", q_, 1)
        if x < 0.4:
            aggs = self.aggs(r, "a", q_, r.choice([1, 2]))
            q_.sql = "SELECT count(*), %s FROM %s a WHERE %s" % (", ".join(s_ for s_, _ in aggs), t, cond)
            q_.tols = [None] + [tl for _, tl in aggs]
        elif x < 0.65:
            q_.sql = "SELECT %s AS k, count(*), sum(a.i2) FROM %s a%s GROUP BY 1 ORDER BY 1" % (
                lk, t, self.where(r, "a", q_, 0.4))
            q_.order = [0]
        else:
            sql = "SELECT a.id, a.%s, %s FROM %s a WHERE %s" % (col, lk, t, cond)
            sql += self.order_clause(r, [3, 2], "1")
            q_.order = [2, 1, 0]
            if r.random() < 0.6:
                sql += self.limit(r)[0]
            q_.sql = sql

    def shape_cursor(self, r, q_):
        """A SCROLL cursor over a sorted query, fetched forward and backward."""
        t = self.fact(r)
        keys = r.sample(SORTCOLS, r.choice([1, 2]))
        cols = ["a.id"] + ["a.%s" % k for k in keys]
        sql = "SELECT %s FROM %s a%s" % (", ".join(cols), t, self.where(r, "a", q_, 0.5))
        sql += self.order_clause(r, list(range(2, len(keys) + 2)), "1")
        fetches = r.sample(["FETCH 5 FROM c", "FETCH BACKWARD 2 FROM c", "FETCH ABSOLUTE 100 FROM c",
                            "FETCH RELATIVE -3 FROM c", "FETCH LAST FROM c", "FETCH PRIOR FROM c",
                            "FETCH FIRST FROM c", "MOVE FORWARD 1000 IN c", "FETCH 3 FROM c",
                            "FETCH BACKWARD ALL FROM c"], 5)
        q_.sql = "BEGIN; DECLARE c %sCURSOR FOR %s; %s; COMMIT" % (
            r.choice(["SCROLL ", "SCROLL ", ""]) if all("BACKWARD" not in f and "PRIOR" not in f
                                                     and "ABSOLUTE" not in f and "RELATIVE" not in f
                                                     and "FIRST" not in f and "LAST" not in f
                                                     for f in fetches) else "SCROLL ",
            sql, "; ".join(fetches))
        q_.explain = sql
        q_.multi = True
        q_.accumulate = True
        q_.order = list(range(len(cols)))

    def shape_agg(self, r, q_):
        t = self.fact(r)
        aggs = self.aggs(r, "a", q_)
        q_.sql = "SELECT %s FROM %s a%s" % (", ".join(s for s, _ in aggs), t, self.where(r, "a", q_))
        q_.tols = [tl for _, tl in aggs]

    def group_key(self, r, a):
        x = r.random()
        if x < 0.45:
            return "%s.%s" % (a, r.choice(["g", "g", "g2", "b", "i2", "t", "c", "v", "d", "f4"]))
        if x < 0.65:
            return r.choice(["%s.i4 % 10", "%s.i2 / 100", "%s.i8 % 7", "(%s.id % 50)::int2",
                             "%s.g + 1", "-%s.g2", "%s.f8 > 0", "%s.f4 * 2"]).replace("%s", a)
        if x < 0.72:
            # substrings (text keys within a column's bytes) and CASE keys
            return r.choice(["substring(%s.t from 1 for 2)", "substr(%s.v, 2, 3)",
                             "substring(%s.c from 1 for 1)", "left(%s.t, 1)", "%s.c::text",
                             "substring(%s.tl from 2)",
                             "CASE WHEN %s.t LIKE 'k1%' THEN 1 WHEN %s.g2 > 0 THEN 2 END",
                             "CASE %s.g WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'x' END",
                             "COALESCE(%s.i2, -1)"]).replace("%s", a)
        if x < 0.85:
            return "%s.%s" % (a, r.choice(["i4", "id", "f8", "ts", "tz", "t", "v", "i8", "f8x", "n"]))
        return r.choice(["%s.tl", "%s.n", "lower(%s.t)", "date_trunc('year', %s.ts)",
                         "%s.id % 3 = 0"]).replace("%s", a)

    def distinct_arg(self, r, a):
        """count(DISTINCT x)'s x: columns and expressions of every key type."""
        if r.random() < 0.75:
            return "%s.%s" % (a, r.choice(["g", "g2", "i2", "i4", "i8", "id", "d", "t", "v", "c",
                                           "f4", "f8", "ts", "tz", "n", "n2", "b", "tl"]))
        return r.choice(["%s.i4 % 100", "%s.i8 % 13", "%s.id / 7", "substring(%s.t from 1 for 2)",
                         "%s.c::text", "%s.f8 * 0", "%s.d + 1", "lower(%s.t)"]).replace("%s", a)

    def shape_distinct(self, r, q_):
        """count(DISTINCT x), plain or grouped, beside other aggregates: the GPU groups
        by the keys and x, GpuAgg folds the groups of equal keys."""
        t = self.fact(r)
        nk = r.choice([0, 0, 1, 1, 1, 2, 2, 3])
        keys = []
        while len(keys) < nk:
            k = self.group_key(r, "a")
            if k not in keys:
                keys.append(k)
        x = self.distinct_arg(r, "a")
        cd = "count(DISTINCT %s)" % x
        aggs = [(cd, None)]
        x_ = r.random()
        if x_ < 0.35:
            aggs += self.aggs(r, "a", q_, r.choice([1, 1, 2, 3]))
        elif x_ < 0.8:
            # the aggregates the fold merges: mostly min/max/sum/count
            for _ in range(r.choice([1, 2, 3])):
                aggs.append(self.agg(r, "a", q_, fn=r.choice(["min", "max", "sum", "avg"]))
                            if r.random() < 0.7 else
                            (r.choice(["count(*)", "count(a.t)", "count(a.i4)"]), None))
        if r.random() < 0.4:
            # internal states (finished through their deserialize and final functions),
            # and min/max of dates and timestamps
            for _ in range(r.choice([1, 2])):
                aggs.append((r.choice(["sum(a.n2)", "avg(a.n2)", "sum(a.n4)", "avg(a.n4)",
                                       "sum(a.i8)", "avg(a.i8)", "avg(a.i4)", "sum(a.i4)",
                                       "variance(a.i4)", "stddev(a.i8)", "min(a.d)",
                                       "max(a.d)", "min(a.ts)", "max(a.ts)", "max(a.tz)"]),
                             None))
        if r.random() < 0.2:
            aggs.append((cd + " + 1", None))
        if r.random() < 0.1:
            aggs.append(("count(DISTINCT %s)" % self.distinct_arg(r, "a"), None))
        r.shuffle(aggs)
        sel = keys + [s for s, _ in aggs]
        q_.tols = [None] * nk + [tl for _, tl in aggs]
        q_.numval = {i for i, k in enumerate(keys) if k == "a.n"}
        sql = "SELECT %s FROM %s a%s" % (", ".join(sel), t, self.where(r, "a", q_, 0.6))
        if keys:
            sql += " GROUP BY " + ", ".join(keys)
        if r.random() < 0.3:
            sql += " HAVING %s %s %d" % (cd, r.choice([">", "<", "="]), r.choice([0, 1, 2, 5, 50]))
        elif r.random() < 0.1:
            sql += " HAVING sum(a.n2) %s %d" % (r.choice([">", "<"]), r.randint(-100000, 100000))
        if keys and r.random() < 0.6:
            j = [s for s, _ in aggs].index(cd)
            pos = [nk + j + 1] + list(range(1, nk + 1))
            sql += self.order_clause(r, pos)
            q_.order = [p - 1 for p in pos]
            if r.random() < 0.5:
                sql += self.limit(r)[0]
        q_.sql = sql

    def shape_group(self, r, q_):
        t = self.fact(r)
        nk = r.choice([1, 1, 2, 2, 3])
        keys = []
        while len(keys) < nk:
            k = self.group_key(r, "a")
            if k not in keys:
                keys.append(k)
        aggs = self.aggs(r, "a", q_, r.choice([1, 2, 3, 4]))
        sel = keys + [s for s, _ in aggs]
        q_.tols = [None] * nk + [tl for _, tl in aggs]
        q_.numval = {i for i, k in enumerate(keys) if k == "a.n"}
        sql = "SELECT %s FROM %s a%s GROUP BY %s" % (
            ", ".join(sel), t, self.where(r, "a", q_, 0.5), ", ".join(keys))
        if r.random() < 0.35:
            h = r.choice(["count(*) > %d" % r.choice([1, 2, 5, 100]),
                          "sum(a.i4) > %d" % r.randint(-100000, 100000),
                          "min(a.i2) < %d" % r.randint(-500, 500), "max(a.f8) > 0",
                          "avg(a.g2) > 20", "count(a.t) >= 1", "sum(a.f4) < 100",
                          "count(*) > 1 AND max(a.i8) > 0", "stddev(a.i4) IS NOT NULL",
                          # the forms GpuAgg tests on the GPU (docs/SEMANTICS.md 31):
                          # commuted, =, <>, int2/int8/numeric sums, a constant
                          # with a digit below n2's scale, NaN, two terms
                          "%d <= count(*)" % r.choice([1, 3, 40]),
                          "count(a.i2) = %d" % r.choice([0, 1, 2, 7]),
                          "sum(a.i2) <> 0 AND count(*) >= 2",
                          "sum(a.i8) <= %d" % r.randint(-10 ** 12, 10 ** 12),
                          "sum(a.n2) >= %s" % r.choice(["0", "12.50", "-3.25", "12.505", "'NaN'"]),
                          "sum(a.n4) < %s AND count(a.n4) > 1" % r.choice(["0", "1.0001", "-7.5"]),
                          "sum(a.n) > %s" % r.choice(["0", "2.5", "-1"])])
            sql += " HAVING " + h
        x = r.random()
        lim = ""
        if x < 0.6:
            # total: the group keys determine the order
            pos = list(range(1, nk + 1))
            r.shuffle(pos)
            sql += self.order_clause(r, pos)
            q_.order = [p - 1 for p in pos]
            if r.random() < 0.5:
                lim, kind = self.limit(r)
                sql += lim
        elif x < 0.8:
            # an exact aggregate first, then the keys
            exact = [i for i, (_, tl) in enumerate(aggs) if tl is None]
            if exact:
                j = r.choice(exact)
                pos = [nk + j + 1] + list(range(1, nk + 1))
                sql += self.order_clause(r, pos)
                q_.order = [p - 1 for p in pos]
                if r.random() < 0.5:
                    sql += self.limit(r)[0]
            elif r.random() < 0.5:
                pos = [nk + 1] + list(range(1, nk + 1))
                sql += self.order_clause(r, pos)
                q_.order = [p - 1 for p in pos]
                q_.order_float = True
        q_.sql = sql

    def sort_cols(self, r, a, keys):
        extra = r.sample(["i4", "f8", "t", "d", "n", "c", "ts", "f4", "b", "v", "i8", "tl"],
                         r.randint(0, 3))
        cols = ["%s.id" % a] + ["%s.%s" % (a, k) for k in keys] + \
            ["%s.%s" % (a, e) for e in extra if e not in keys]
        if r.random() < 0.1 and self.cur_fact in ("f", "fv", "fp"):
            cols.append("%s.ctid IS NOT NULL AS has_ctid" % a)
        return cols

    def shape_sort(self, r, q_):
        t = self.fact(r)
        nk = r.choice([1, 1, 2, 2, 3])
        keys = r.sample(SORTCOLS, nk)
        cols = self.sort_cols(r, "a", keys)
        where = self.where(r, "a", q_, 0.6)
        x = r.random()
        korder = list(range(1, nk + 1))
        if x < 0.1:
            # checksum of the whole order (regress-style)
            sql = ("SELECT md5(string_agg(id::text, ',')), count(*) FROM (SELECT a.id FROM %s a%s%s) x"
                   % (t, where, self.order_clause(r, ["a." + k for k in keys], "a.id")))
            q_.sql = sql
            return
        if x < 0.2 and r.random() < 0.5:
            # an expression key: PostgreSQL sorts
            keys_sql = ["a.i4 % 100", "a.f8 * 2", "lower(a.t)", "a.d + 1"][:nk]
            cols = ["a.id"] + keys_sql + cols[1 + nk:]
            sql = "SELECT %s FROM %s a%s" % (", ".join(cols), t, where)
            sql += self.order_clause(r, list(range(2, len(keys_sql) + 2)), "a.id")
            q_.order = list(range(1, len(keys_sql) + 1)) + [0]
            sql += self.limit(r)[0] if r.random() < 0.6 else ""
            q_.sql = sql
            return
        sql = "SELECT %s FROM %s a%s" % (", ".join(cols), t, where)
        lim, kind = self.limit(r, ties_ok=True)
        if kind == "ties":
            sql += self.order_clause(r, [p + 1 for p in korder]) + lim
            q_.order = korder
        elif kind == "limit" or r.random() < 0.5:
            sql += self.order_clause(r, [p + 1 for p in korder], "1") + lim
            q_.order = korder + [0]
        else:
            # a partial order without LIMIT: equal keys may come in any order
            sql += self.order_clause(r, [p + 1 for p in korder])
            q_.order = korder
        q_.sql = sql

    def shape_semi(self, r, q_):
        t = self.fact(r)
        sp = self.sub_pred(r, "a", q_)
        if r.random() < 0.4:
            sp = "%s AND %s" % (sp, self.pred(r, "a", q_, 1))
        if r.random() < 0.12:
            sp = "%s AND %s" % (sp, self.sub_pred(r, "a", q_))
        x = r.random()
        if x < 0.5:
            aggs = self.aggs(r, "a", q_)
            q_.sql = "SELECT %s FROM %s a WHERE %s" % (", ".join(s for s, _ in aggs), t, sp)
            q_.tols = [tl for _, tl in aggs]
        elif x < 0.62:
            k = self.group_key(r, "a")
            aggs = self.aggs(r, "a", q_, 2)
            q_.sql = "SELECT %s, %s FROM %s a WHERE %s GROUP BY 1 ORDER BY 1" % (
                k, ", ".join(s for s, _ in aggs), t, sp)
            q_.numval = {0} if k == "a.n" else set()
            q_.tols = [None] + [tl for _, tl in aggs]
            q_.order = [0]
        else:
            keys = r.sample(SORTCOLS, r.choice([0, 1, 1, 2]))
            cols = self.sort_cols(r, "a", keys)
            sql = "SELECT %s FROM %s a WHERE %s" % (", ".join(cols), t, sp)
            if keys and r.random() < 0.7:
                sql += self.order_clause(r, list(range(2, len(keys) + 2)), "1")
                q_.order = list(range(1, len(keys) + 1)) + [0]
                if r.random() < 0.6:
                    sql += self.limit(r)[0]
            q_.sql = sql
        # the fact table as the build side
        if r.random() < 0.1:
            fc, dc = r.choice(KEY_PAIRS)
            q_.sql = "SELECT count(*), sum(d.val), min(d.did) FROM dk d WHERE d.%s %sIN (SELECT a.%s FROM %s a%s)" % (
                dc, "NOT " if r.random() < 0.3 else "", fc, t, self.where(r, "a", q_, 0.5))
            q_.tols, q_.order = None, None

    def shape_join(self, r, q_):
        t = self.fact(r)
        fc, dc = r.choice(KEY_PAIRS)
        dim = r.choice(["dk", "du", "du", "de"])
        on = "a.%s = d.%s" % (fc, dc)
        if r.random() < 0.08:
            dim, on = ("fv", "a.id = d.id") if t == "f" else ("f", "a.id = d.id")
            dcols = ["d.i4", "d.t", "d.f8"]
            did = "d.id"
        else:
            dcols = ["d.val", "d.kt", "d.w", "d.%s" % dc, "d.kd"]
            did = "d.did"
        where = self.where(r, "a", q_, 0.5)
        if where and r.random() < 0.3:
            where += " AND %s IS NOT NULL" % dcols[0]
        x = r.random()
        if x < 0.45:
            aggs = self.aggs(r, "a", q_, r.choice([1, 1, 2, 3]))
            if r.random() < 0.3:
                aggs = [("count(*)", None)] + aggs[:1]
            if r.random() < 0.2:
                aggs.append(("sum(%s)" % dcols[0], None if dcols[0] != "d.f8" else
                             self.tol("sum", E("x", "float", 1e6), q_)))
            if r.random() < 0.3:
                k = self.group_key(r, "a")
                q_.sql = "SELECT %s, %s FROM %s a JOIN %s d ON %s%s GROUP BY 1 ORDER BY 1" % (
                    k, ", ".join(s for s, _ in aggs), t, dim, on, where)
                q_.numval = {0} if k == "a.n" else set()
                q_.tols = [None] + [tl for _, tl in aggs]
                q_.order = [0]
            else:
                q_.sql = "SELECT %s FROM %s a JOIN %s d ON %s%s" % (
                    ", ".join(s for s, _ in aggs), t, dim, on, where)
                q_.tols = [tl for _, tl in aggs]
        else:
            keys = r.sample(SORTCOLS, r.choice([0, 1, 2]))
            cols = self.sort_cols(r, "a", keys)
            with_dim = r.random() < 0.5
            if with_dim:
                cols = cols + [did] + r.sample(dcols, r.randint(1, 2))
            sql = "SELECT %s FROM %s a JOIN %s d ON %s%s" % (", ".join(cols), t, dim, on, where)
            if r.random() < 0.6:
                if keys:
                    tot = "1" + (", %d" % (1 + nkeys(cols, keys, did)) if with_dim else "")
                    sql += self.order_clause(r, list(range(2, len(keys) + 2)), tot)
                    q_.order = list(range(1, len(keys) + 1)) + [0] + (
                        [cols.index(did)] if with_dim else [])
                else:
                    sql += " ORDER BY 1" + (", %d" % (cols.index(did) + 1) if with_dim else "")
                    q_.order = [0] + ([cols.index(did)] if with_dim else [])
                if r.random() < 0.6:
                    sql += self.limit(r)[0]
            q_.sql = sql

    def shape_star(self, r, q_):
        """A fact table joined to 2-3 dimensions, grouped by their columns (issue 20)."""
        t = self.fact(r)
        n = r.choice([1, 2, 2, 3, 3])
        joins, dfilt = [], []
        for j in range(n):
            fc, dc = r.choice(KEY_PAIRS)
            dim = r.choice(["du", "du", "du", "dk", "de"])
            al = "d%d" % (j + 1)
            # now and then an outer join, which a star join must leave to PostgreSQL
            kind = "LEFT JOIN" if r.random() < 0.08 else "JOIN"
            joins.append(" %s %s %s ON a.%s = %s.%s" % (kind, dim, al, fc, al, dc))
            if r.random() < 0.4:
                dfilt.append(r.choice(["%s.val < %d", "%s.val > %d", "%s.val <> %d"])
                             % (al, r.randint(-40, 40)))
            if r.random() < 0.15:
                dfilt.append("%s.kt IS NOT NULL" % al)
            if r.random() < 0.12:
                # a snowflake: the dimension joined to a sub-dimension on its own key
                sub = "s%d" % (j + 1)
                joins.append(" JOIN %s %s ON %s.%s = %s.%s" % (
                    r.choice(["du", "dk"]), sub, al, r.choice(["kc", "kv", "val"]), sub,
                    r.choice(["kc", "kv", "val"])))
        if n >= 2 and r.random() < 0.3:
            # two dimensions joined to each other as well (TPC-H Q5, Q7): the GPU
            # tests the clause per fact row with both dimensions' columns
            a1, a2 = r.sample(["d%d" % (j + 1) for j in range(n)], 2)
            dfilt.append(r.choice([
                "%(a)s.val = %(b)s.val", "%(a)s.k = %(b)s.val", "%(a)s.val < %(b)s.val",
                "%(a)s.val IS DISTINCT FROM %(b)s.val", "%(a)s.kd = %(b)s.kd",
                "((%(a)s.kc = 'k1' AND %(b)s.kt = 'k2') OR (%(a)s.kc = 'k2' AND %(b)s.kt LIKE 'k1%%'))",
                "%(a)s.kt = %(b)s.kt", "%(a)s.val + %(b)s.val > 0"]) % {"a": a1, "b": a2})
        if r.random() < 0.15:
            # a semi-join beside the inner ones
            fc, dc = r.choice(KEY_PAIRS)
            dfilt.append("a.%s IN (SELECT %s FROM %s WHERE val > %d)" % (
                fc, dc, r.choice(["du", "dk"]), r.randint(-40, 40)))
        keys = []
        for _ in range(r.choice([1, 1, 2, 3])):
            if r.random() < 0.15:
                keys.append(self.group_key(r, "a"))
            else:
                keys.append("d%d.%s" % (r.randint(1, n),
                                        r.choice(["val", "kt", "kt", "kc", "kd", "kv", "k2", "k8",
                                                  "kts", "w"])))
        keys = list(dict.fromkeys(keys))
        aggs = self.aggs(r, "a", q_, r.choice([1, 2, 3]))
        if r.random() < 0.3:
            aggs = [("count(*)", None)] + aggs
        if r.random() < 0.2:
            aggs.append(("sum(d1.val)", None))
        if r.random() < 0.3:
            # a CASE over a dimension's text (TPC-H Q14, Q8): the test carried as a payload
            d = "d%d" % r.randint(1, n)
            test = r.choice(["%s.kt LIKE 'k1%%'", "%s.kv NOT LIKE '%%3'", "%s.kc = 'k2'",
                             "%s.kt = 'k7' OR %s.kv LIKE 'k_'", "%s.kt ~ '^k1'",
                             "%s.kc LIKE 'k1%%' AND %s.val > 0"]).replace("%s", d).replace("%%", "%")
            then = r.choice(["a.n2 * (1 - a.n4)", "a.n2", "a.i4", "a.n4 * 2", "a.n"])
            other = r.choice(["0", "0.00", "a.n4", "NULL", "1"])
            fn = r.choice(["sum", "sum", "avg", "max"])
            aggs.append(("%s(CASE WHEN %s THEN %s ELSE %s END)" % (fn, test, then, other), None))
        where = self.where(r, "a", q_, 0.5)
        if dfilt:
            where += (" AND " if where else " WHERE ") + " AND ".join(dfilt)
        k = len(keys)
        q_.sql = "SELECT %s, %s FROM %s a%s%s GROUP BY %s ORDER BY %s" % (
            ", ".join(keys), ", ".join(sql for sql, _ in aggs), t, "".join(joins), where,
            ", ".join(str(i + 1) for i in range(k)), ", ".join(str(i + 1) for i in range(k)))
        # no LIMIT: PostgreSQL may stop aggregating early (sorted groups), so a
        # row's error past the LIMIT, or which of two errors comes first, is its
        # plan's order (README: Guarantees); the group shape covers LIMIT
        q_.numval = {i for i, key in enumerate(keys) if key == "a.n"}
        q_.tols = [None] * k + [tl for _, tl in aggs]
        q_.order = list(range(k))

    def shape_anyarray(self, r, q_):
        t = self.fact(r)
        d = self.d
        name = r.choice(["i4", "i2", "i8", "t", "v", "c", "d", "g2", "f8", "ts"])
        kind, typ = FACT_META[name][0], FACT_META[name][1]
        k = r.choice([3, 17, 20, 33, 64])
        vals = [lit_for(r, d, kind, typ) for _ in range(k)]
        if r.random() < 0.15:
            vals[r.randrange(k)] = "NULL"
        form = r.choice(["in", "notin", "any", "all", "any", "all"])
        arrtype = {"int2": "int2", "int4": "int4", "int8": "int8", "text": "text", "varchar": "text",
                   "bpchar": "bpchar", "date": "date", "float8": "float8", "timestamp": "timestamp"}[typ]
        if form == "in":
            p = "a.%s IN (%s)" % (name, ", ".join(vals))
        elif form == "notin":
            p = "a.%s NOT IN (%s)" % (name, ", ".join(vals))
        elif form == "any":
            p = "a.%s = ANY (ARRAY[%s]::%s[])" % (name, ", ".join(vals), arrtype)
        else:
            p = "a.%s <> ALL (ARRAY[%s]::%s[])" % (name, ", ".join(vals), arrtype)
        if r.random() < 0.3:
            p += " AND " + self.pred(r, "a", q_, 1)
        if r.random() < 0.6:
            aggs = self.aggs(r, "a", q_)
            q_.sql = "SELECT %s FROM %s a WHERE %s" % (", ".join(s for s, _ in aggs), t, p)
            q_.tols = [tl for _, tl in aggs]
        else:
            keys = r.sample(SORTCOLS, r.choice([0, 1, 2]))
            cols = self.sort_cols(r, "a", keys)
            sql = "SELECT %s FROM %s a WHERE %s" % (", ".join(cols), t, p)
            if keys:
                sql += self.order_clause(r, list(range(2, len(keys) + 2)), "1")
                q_.order = list(range(1, len(keys) + 1)) + [0]
                sql += self.limit(r)[0] if r.random() < 0.5 else ""
            q_.sql = sql

    def shape_gpu_aggs(self, r, q_):
        t = self.fact(r)
        out, tols = [], []
        for _ in range(r.randint(1, 4)):
            fn = r.choice(["min", "max", "sum", "avg"] + AGG_FLOAT[2:])
            e = self.col(r, "a", r.choice(["i2", "i4", "i8", "f4", "f8", "f8", "i4", "g2"] +
                                          (["f8x", "f8big"] if fn in ("min", "max", "sum", "avg")
                                           or r.random() < 0.3 else [])))
            out.append((fn, e.sql))
            tols.append(self.tol(fn, e, q_))
        where = self.where(r, "a", q_, 0.4)
        grp = r.random() < 0.4
        key = r.choice(["a.g", "a.b", "a.g2 % 3"]) if grp else None
        def text(prefix):
            sel = ", ".join("%s%s(%s)" % (prefix, fn, c) for fn, c in out)
            if grp:
                return "SELECT %s, %s FROM %s a%s GROUP BY 1 ORDER BY 1" % (key, sel, t, where)
            return "SELECT %s FROM %s a%s" % (sel, t, where)
        q_.sql = text("gpu_")
        q_.sql_off = text("")
        q_.tols = ([None] if grp else []) + tols
        q_.order = [0] if grp else None
        q_.gpu_settings.append("pg_gpu.min_rows = %d" % r.choice([1, 1000, 100000]))

    def shape_slot_sort(self, r, q_):
        t = self.fact(r)
        x = r.random()
        if x < 0.35:
            fc, dc = r.choice(KEY_PAIRS)
            dim = r.choice(["du", "dk"])
            key = r.choice(["d.val", "d.w", "d.kt", "d.kd", "a.f8", "a.t", "a.i2", "a.n", "d.%s" % dc])
            sql = ("SELECT a.id, d.did, %s, a.i4 FROM %s a JOIN %s d ON a.%s = d.%s%s"
                   % (key, t, dim, fc, dc, self.where(r, "a", q_, 0.4)))
            sql += self.order_clause(r, [3], "1, 2")
            q_.order = [2, 0, 1]
        elif x < 0.6:
            k = r.choice(["i4", "t", "f8", "d", "c", "n", "ts"])
            sql = ("SELECT * FROM (SELECT 1 AS src, a.id, a.%s FROM f a%s UNION ALL "
                   "SELECT 2, b.id, b.%s FROM fv b%s) u" % (
                       k, self.where(r, "a", q_, 0.5), k, self.where(r, "b", q_, 0.5)))
            sql += self.order_clause(r, [3], "2, 1")
            q_.order = [2, 1, 0]
        elif x < 0.8:
            k = self.group_key(r, "a")
            sql = "SELECT * FROM (SELECT %s AS k, count(*) AS cnt, sum(a.i2) AS s FROM %s a%s GROUP BY 1) s" % (
                k, t, self.where(r, "a", q_, 0.5))
            q_.numval = {0} if k == "a.n" else set()
            sql += self.order_clause(r, [2, 3], "1")
            q_.order = [1, 2, 0]
        else:
            sql = ("SELECT a.id, a.i4, row_number() OVER (ORDER BY a.i4, a.id) AS rn FROM %s a%s"
                   % (t, self.where(r, "a", q_, 0.5)))
            sql += " ORDER BY 3"
            q_.order = [2]
        if r.random() < 0.5:
            sql += self.limit(r)[0]
        q_.sql = sql

    def shape_left_join(self, r, q_):
        t = self.fact(r)
        fc, dc = r.choice(KEY_PAIRS)
        x = r.random()
        if x < 0.35:
            # grouped by the preserved side's key (TPC-H Q13; docs/SEMANTICS.md 32):
            # every dimension key a group, those without a fact row count(*) 1
            fc, dc = r.choice([("i4", "k"), ("i2", "k2"), ("i8", "k8"), ("g", "val"), ("g2", "k2"),
                               ("i4", "did"), ("i2", "k")])
            aggs = r.sample(["count(*)", "count(a.id)", "count(a.t)", "sum(a.i4)", "sum(a.i2)",
                             "min(a.i8)", "max(a.d)", "avg(a.i4)", "sum(a.n2)", "max(a.n2)",
                             "count(coalesce(a.i4, 0))", "sum(a.i8)"], r.randint(1, 4))
            on = " AND " + self.pred(r, "a", q_) if r.random() < 0.5 else ""
            sql = ("SELECT d.%s, %s FROM %s d LEFT JOIN %s a ON d.%s = a.%s%s%s GROUP BY d.%s"
                   % (dc, ", ".join(aggs), r.choice(["dk", "du", "de"]), t, dc, fc, on,
                      " WHERE d.val %% 3 <> %d" % r.randint(0, 2) if r.random() < 0.3 else "", dc))
            if r.random() < 0.3:
                sql += r.choice([" HAVING count(*) = 1", " HAVING count(a.id) > 1",
                                 " HAVING count(*) > 2 AND sum(a.i4) > 0"])
            q_.sql = sql
            return
        if x < 0.3:
            q_.sql = ("SELECT count(*), count(d.did), sum(a.i2), min(d.val) FROM %s a LEFT JOIN %s d ON a.%s = d.%s%s"
                      % (t, r.choice(["dk", "du", "de"]), fc, dc, self.where(r, "a", q_, 0.5)))
        elif x < 0.6:
            sql = ("SELECT a.id, d.did, d.val, a.%s FROM %s a LEFT JOIN %s d ON a.%s = d.%s%s"
                   % (fc, t, r.choice(["dk", "du"]), fc, dc, self.where(r, "a", q_, 0.5)))
            sql += " ORDER BY 1, 2 NULLS FIRST"
            q_.order = [0, 1]
            if r.random() < 0.6:
                sql += self.limit(r)[0]
            q_.sql = sql
        else:
            # outer-join output used as a join key (PlaceHolderVar)
            inner = r.choice(["coalesce(d.val, 0)", "d.val + 0", "1", "d.k"])
            q_.sql = ("SELECT count(*), sum(a.i2), count(s.cv) FROM %s a LEFT JOIN (SELECT d.%s AS key, %s AS cv FROM dk d) s "
                      "ON a.%s = s.key JOIN du u ON u.val = s.cv%s" % (
                          t, dc, inner, fc, self.where(r, "a", q_, 0.4)))
            if r.random() < 0.5:
                q_.sql = ("SELECT count(*), sum(a.i2) FROM %s a LEFT JOIN (SELECT d.%s AS key, %s AS cv FROM dk d) s "
                          "ON a.%s = s.key WHERE s.cv IN (SELECT u.val FROM du u)" % (t, dc, inner, fc))

    # -- numeric (exact scaled integers on the GPU, docs/SEMANTICS.md 22) ------
    def nlit(self, r):
        """A numeric constant: several scales, signs, sizes (and some the GPU refuses)."""
        x = r.random()
        if x < 0.5:
            v = r.choice(["0", "1", "2", "-1", "0.5", "1.50", "-2.25", "100", "0.0001", "3.000",
                          "0.01", "-0.001", "1000000", "12.345678", "0.000000001", "1e20",
                          "12379400392853802.74", "99999999999999.99", "-0.00"])
        elif x < 0.8:
            v = r.choice(self.d.p_n2 + self.d.p_n4)
        else:
            v = r.choice(self.d.p_num)
        if v[0] in "NI-" and not v[0].isdigit():
            if v.startswith("-") and v[1:2].isdigit():
                return "(%s)" % v if r.random() < 0.5 else "(%s::numeric)" % v
            return "'%s'::numeric" % v
        return v if r.random() < 0.6 else "%s::numeric" % v

    def extract(self, r, a, numeric=True):
        """EXTRACT (numeric) or date_part (float8) of a date, timestamp or timestamptz."""
        col = r.choice(["d", "d", "ts", "ts", "tz"])
        fields = ["year", "month", "day", "quarter", "dow", "isodow", "doy", "week", "isoyear",
                  "decade", "century", "millennium", "epoch", "YEAR", "'Years'"]
        if col == "d" and numeric:
            fields += ["julian"]
        else:
            fields += ["hour", "minute", "second", "milliseconds", "microseconds", "julian"]
        f = r.choice(fields)
        if numeric:
            return "extract(%s FROM %s.%s)" % (f, a, col)
        return "date_part(%s, %s.%s)" % (q(f.strip("'").lower()), a, col)

    def ncase(self, r, a, depth):
        """A numeric CASE or COALESCE (docs/SEMANTICS.md 29): branches of several scales,
        integer, constant and NULL branches, no ELSE, nested and simple CASE."""
        conds = ["a.i4 > 0", "a.g = 1", "a.n2 < 0", "a.n4 >= 0.5", "a.t LIKE 'k1%'", "a.b",
                 "a.i2 IS NULL", "a.n > 1", "a.d < DATE '2000-01-01'", "a.g2 <> 0"]

        def branch():
            y = r.random()
            if y < 0.55:
                return self.nexpr(r, a, depth + 1)
            if y < 0.85:
                return r.choice(["0", "1", "-2", "a.i2", "a.g", "0.5", "0.000", "NULL", "100.25"])
            return self.nlit(r)
        x = r.random()
        if x < 0.2:
            return "COALESCE(%s, %s)" % (self.nexpr(r, a, depth + 1), branch())
        if x < 0.35:
            # simple CASE over a numeric operand
            whens = " ".join("WHEN %s THEN %s" % (r.choice(["0", "1", "0.5", "-1.00", "2"]),
                                                   self.nexpr(r, a, depth + 1) if i == 0 else branch())
                             for i in range(r.choice([1, 2])))
            return "CASE %s.%s %s ELSE %s END" % (a, r.choice(["n2", "n4", "n"]), whens, branch())
        # the first THEN numeric, so that the CASE is
        whens = " ".join("WHEN %s THEN %s" % (r.choice(conds),
                                              self.nexpr(r, a, depth + 1) if i == 0 else branch())
                         for i in range(r.choice([1, 1, 2, 3])))
        els = "" if r.random() < 0.25 else " ELSE %s" % branch()
        return ("CASE %s%s END" % (whens, els)).replace("a.", a + ".")

    def nexpr(self, r, a, depth=0):
        """A numeric expression: numeric columns, int-to-numeric casts, + - * and unary -,
        CASE and COALESCE."""
        x = r.random()
        if depth < 2 and x < 0.12:
            return self.ncase(r, a, depth)
        if depth >= 2 or x < 0.45:
            y = r.random()
            if y < 0.12:
                return self.extract(r, a)
            if y < 0.7:
                return "%s.%s" % (a, r.choice(["n2", "n2", "n4", "n4", "n"]))
            if y < 0.85:
                return "%s.%s::numeric" % (a, r.choice(["i2", "i4", "i8", "g", "g2", "id"]))
            return self.nlit(r)
        if x < 0.52:
            return "(-%s)" % self.nexpr(r, a, depth + 1)
        op = r.choice(["+", "-", "*", "+", "-", "*", "/"] if r.random() < 0.1 else ["+", "-", "*"])
        b = self.nexpr(r, a, depth + 1) if r.random() < 0.5 else self.nlit(r)
        if op == "*" and r.random() < 0.5:
            b = r.choice(["%s.g::numeric" % a, "%s.g2::numeric" % a, "2", "0.5", "1.25", "-3"])
        return "(%s %s %s)" % (self.nexpr(r, a, depth + 1), op, b)

    def npred(self, r, a, q_, depth=0):
        x = r.random()
        if depth < 2 and x < 0.2:
            return "(%s %s %s)" % (self.npred(r, a, q_, depth + 1), r.choice(["AND", "OR"]),
                                   self.npred(r, a, q_, depth + 1))
        if x < 0.55:
            rhs = self.nlit(r) if r.random() < 0.6 else self.nexpr(r, a, 1)
            return "%s %s %s" % (self.nexpr(r, a, 1), r.choice(["=", "<>", "<", "<=", ">", ">="]), rhs)
        if x < 0.6:
            # EXTRACT against years, months, days of the data
            return "%s %sBETWEEN %s AND %s" % (
                self.extract(r, a), r.choice(["", "NOT "]),
                r.choice(["1", "1995", "12", "-1", "2000.5"]), r.choice(["3", "1998", "2005", "31"]))
        if x < 0.65:
            return "%s.%s %sBETWEEN %s AND %s" % (a, r.choice(["n", "n2", "n4"]),
                                                r.choice(["", "NOT "]), self.nlit(r), self.nlit(r))
        if x < 0.85:
            # a date against date +- interval: a timestamp constant (midnight or not)
            base = r.choice(self.d.p_date[:-7] + ["2000-01-01", "1994-01-01"])
            iv = r.choice(["1 year", "1 month", "1 day", "36 hours", "-12 hours", "1 second",
                           "-1 microsecond", "3 months 2 days", "0 days", "23:59:59.999999"])
            op = r.choice(["<", "<=", ">", ">=", "=", "<>"])
            lhs, rhs = "%s.d" % a, "DATE %s %s interval %s" % (q(base), r.choice(["+", "-"]), q(iv))
            if r.random() < 0.15:
                rhs = r.choice(["TIMESTAMP 'infinity'", "TIMESTAMP '-infinity'",
                                "TIMESTAMP '2005-03-04 10:00'", "TIMESTAMP '2005-03-04'"])
            if r.random() < 0.25:
                lhs, rhs = rhs, lhs
            return "%s %s %s" % (lhs, op, rhs)
        return self.atom(r, a, q_)

    def shape_numeric(self, r, q_):
        t = "fv" if r.random() < 0.5 else self.fact(r)
        a = "a"
        aggs, numval = [], set()
        for i in range(r.choice([1, 2, 3, 4, 5])):
            fn = r.choice(["sum", "sum", "sum", "avg", "avg", "min", "max", "count"])
            e = self.nexpr(r, a, r.choice([0, 1, 1, 2]))
            if fn == "count" and r.random() < 0.8:
                e = "a.%s" % r.choice(["n", "n2", "n4"])    # count(expression): PostgreSQL's plan
            if r.random() < 0.04:
                e = "CASE WHEN %s THEN %s END" % (self.npred(r, a, q_, 2), e)
            aggs.append("%s(%s)" % (fn, e))
        where = " WHERE " + self.npred(r, a, q_) if r.random() < 0.8 else ""
        x = r.random()
        if x < 0.45:
            q_.sql = "SELECT %s FROM %s a%s" % (", ".join(aggs), t, where)
            off = 0
        else:
            key = r.choice(["a.g", "a.g2", "a.g", "a.g2", "a.i2", "a.d", "a.g, a.d", "a.b", "a.n2",
                            "a.n4", self.extract(r, a), "a.g, " + self.extract(r, a),
                            self.extract(r, a, False)])
            nk = key.count(",") + 1
            q_.sql = "SELECT %s, %s FROM %s a%s GROUP BY %s" % (key, ", ".join(aggs), t, where, key)
            if r.random() < 0.3:
                q_.sql += " HAVING %s(%s) %s %s" % (r.choice(["sum", "min", "max", "avg"]),
                                                    self.nexpr(r, a, 1), r.choice(["<", ">", "<>"]),
                                                    self.nlit(r))
            off = nk
        # min/max of typmod-less values, or of a CASE whose branches' scales differ,
        # print the scale of the first equal value met
        q_.numval = {off + i for i, s_ in enumerate(aggs)
                     if s_[:3] in ("min", "max") and re.search(r"a\.n\b|CASE|COALESCE", s_)}
        if off and re.search(r"a\.n\b", key):
            q_.numval |= set(range(off))

    def shape_other(self, r, q_):
        t = self.fact(r)
        w = self.where(r, "a", q_, 0.5)
        forms = [
            "SELECT sum(a.n), avg(a.n), min(a.n), max(a.n), count(a.n) FROM %s a%s" % (t, w),
            "SELECT count(DISTINCT a.i2), count(DISTINCT a.t) FROM %s a%s" % (t, w),
            "SELECT a.g, count(*) FILTER (WHERE a.b), sum(a.i4) FILTER (WHERE a.i2 > 0) FROM %s a%s GROUP BY 1 ORDER BY 1" % (t, w),
            "SELECT sum(CASE WHEN a.i4 > 0 THEN 1 ELSE 0 END), max(length(a.t)) FROM %s a%s" % (t, w),
            "SELECT a.g, a.b, count(*), sum(a.i2) FROM %s a%s GROUP BY ROLLUP (a.g, a.b) ORDER BY 1, 2" % (t, w),
            "SELECT DISTINCT a.c FROM %s a%s ORDER BY 1" % (t, w),
            "SELECT min(a.t), max(a.t), min(a.d), max(a.ts), min(a.c) FROM %s a%s" % (t, w),
            "SELECT a.g, (SELECT count(*) FROM dk d WHERE d.val = a.g) FROM %s a%s GROUP BY a.g ORDER BY 1" % (t, w),
            "WITH s AS (SELECT a.i4, a.f8 FROM %s a%s) SELECT count(*), sum(i4), max(f8) FROM s" % (t, w),
            "SELECT a.id, a.tl FROM %s a WHERE a.tl IN (SELECT d.kt FROM dk d) ORDER BY a.tl, a.id LIMIT 20" % t,
            "SELECT length(a.tl), count(*) FROM %s a%s GROUP BY a.tl ORDER BY 2 DESC, 1 LIMIT 5" % (t, w),
        ]
        i = r.randrange(len(forms))
        q_.sql = forms[i]
        if i == 0:
            q_.numval = {2, 3}
        if i in (2, 4, 7):
            q_.order = [0] if i != 4 else [0, 1]
        if i == 5:
            q_.order = [0]
        if i == 9:
            q_.order = [1, 0]
        if i == 10:
            q_.order = [1, 0]
            q_.flags.add("unordered_ties")   # equal lengths of distinct values may tie
            q_.order = None
            q_.sql = q_.sql.replace("LIMIT 5", "")


def nkeys(cols, keys, did):
    return cols.index(did)


# ----------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------
class Cmp:
    def __init__(self):
        self.tolerated = 0       # values that differed but were within tolerance
        self.compared = 0
        self.notes = []


def _fl(s):
    v = float(s)
    return 0.0 if v == 0 else v


DEC_CTX = decimal.Context(prec=4000, Emax=10 ** 6, Emin=-10 ** 6)


def norm_exact(v, oid, numval=False):
    if v is None:
        return None
    if oid in FLOAT_OIDS:
        x = _fl(v)
        return "NaN" if x != x else x
    if numval and oid == NUMERIC_OID:
        # a group's key (or min/max) shows one of its equal values: 1.0 or 1.00
        d = decimal.Decimal(v)
        return "NaN" if d.is_nan() else str(DEC_CTX.normalize(d))
    return v


def floats_close(a, b, tol, width, cmp):
    cmp.compared += 1
    if a == b or (a != a and b != b):
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    rel = tol["rel"]
    ab = tol["abs"]
    if width == 4:
        rel = max(rel, 1e-6 if tol.get("exact") else 1e-5)
        if not tol.get("exact"):
            ab = ab * 5.4e8
    if abs(a - b) <= max(rel * max(abs(a), abs(b)), ab, 1e-300):
        cmp.tolerated += 1
        return True
    return False


def compare_rows(q_, ra, rb):
    """(equal, why) comparing the reference result ra with the forced result rb."""
    cmp = Cmp()
    if [t for _, t in ra.cols] != [t for _, t in rb.cols]:
        return False, "column types differ: %s vs %s" % (ra.cols, rb.cols), cmp
    oids = [t for _, t in ra.cols]
    ncol = len(oids)
    tols = list(q_.tols or [])
    tols += [None] * (ncol - len(tols))
    tolcols = [i for i in range(ncol) if tols[i] is not None and oids[i] in FLOAT_OIDS]
    exactcols = [i for i in range(ncol) if i not in tolcols]
    if len(ra.rows) != len(rb.rows):
        return False, "row counts differ: %d vs %d" % (len(ra.rows), len(rb.rows)), cmp

    nv = q_.numval

    def key(row):
        return tuple(norm_exact(row[i], oids[i], i in nv) for i in exactcols)

    def fvals(row):
        return tuple(_fl(row[i]) if row[i] is not None else None for i in tolcols)

    def multiset_equal(rows_a, rows_b):
        if not tolcols:
            ca = collections.Counter(key(x) for x in rows_a)
            cb = collections.Counter(key(x) for x in rows_b)
            cmp.compared += len(rows_a) * ncol
            if ca == cb:
                return True, ""
            only_a = list((ca - cb).elements())[:3]
            only_b = list((cb - ca).elements())[:3]
            return False, "rows differ; only in off: %s; only in forced: %s" % (only_a, only_b)
        ga, gb = collections.defaultdict(list), collections.defaultdict(list)
        for x in rows_a:
            ga[key(x)].append(fvals(x))
        for x in rows_b:
            gb[key(x)].append(fvals(x))
        if set(ga) != set(gb):
            da = [k for k in ga if k not in gb][:3]
            db = [k for k in gb if k not in ga][:3]
            return False, "rows differ; only in off: %s; only in forced: %s" % (da, db)
        for k in ga:
            la, lb = ga[k], gb[k]
            if len(la) != len(lb):
                return False, "multiplicity differs for %s" % (k,)
            sk = lambda t: tuple((0, 0) if v is None else ((2, 0) if v != v else (1, v)) for v in t)
            la.sort(key=sk)
            lb.sort(key=sk)
            for fa, fb in zip(la, lb):
                for j, (x, y) in enumerate(zip(fa, fb)):
                    c = tolcols[j]
                    if x is None or y is None:
                        if x is not y:
                            return False, "column %d: %s vs %s (row %s)" % (c + 1, x, y, k)
                        continue
                    if not floats_close(x, y, tols[c], FLOAT_OIDS[oids[c]], cmp):
                        return False, "column %d: %r vs %r beyond tolerance %s (row %s)" % (
                            c + 1, x, y, {kk: tols[c][kk] for kk in ("rel", "abs")}, k)
        return True, ""

    if q_.order is None:
        ok, why = multiset_equal(ra.rows, rb.rows)
        return ok, why, cmp
    # ordered: the sequence of runs of equal ORDER BY keys must agree, each run as a multiset
    okeys = [i for i in q_.order if i < ncol]

    def runs(rows):
        out, cur, curk = [], [], object()
        for x in rows:
            # equal sort keys: numerics by value (1.0 = 1.00 = 1.000 sort as ties)
            k = tuple(norm_exact(x[i], oids[i], True) for i in okeys)
            if k != curk and cur:
                out.append((curk, cur))
                cur = []
            curk = k
            cur.append(x)
        if cur:
            out.append((curk, cur))
        return out

    rsa, rsb = runs(ra.rows), runs(rb.rows)
    if [k for k, _ in rsa] == [k for k, _ in rsb]:
        for (k, xa), (_, xb) in zip(rsa, rsb):
            ok, why = multiset_equal(xa, xb)
            if not ok:
                return False, why, cmp
        return True, "", cmp
    if q_.order_float or any(i in tolcols for i in okeys):
        ok, why = multiset_equal(ra.rows, rb.rows)
        if ok:
            cmp.tolerated += 1
            cmp.notes.append("order by a float aggregate: order compared within tolerance")
            return True, "", cmp
    for i, ((ka, _), (kb, _)) in enumerate(zip(rsa, rsb)):
        if ka != kb:
            return False, "order differs at run %d: %s vs %s" % (i, ka, kb), cmp
    return False, "order differs: %d vs %d runs" % (len(rsa), len(rsb)), cmp


# One-sided errors PostgreSQL's own plans could produce too.  Each entry: a name,
# a justification, and a test on (query, reference result, forced result).
def _one_sided_float_overflow(q_, ra, rb):
    err = ra.error or rb.error
    return ("float_order_overflow" in q_.flags and err.get("C") == "22003"
            and "overflow" in err.get("M", ""))


def _one_sided_eager_build(q_, ra, rb):
    return ("arith_build" in q_.flags and rb.error is not None and ra.error is None
            and rb.error.get("C") in ("22003", "22012"))


# LEFT too: a one-sided error means the WHERE made it inner (else PostgreSQL read every row)
INNER_EMPTY_RE = re.compile(r" JOIN de d\d+ ON ")


def _one_sided_empty_side(q_, ra, rb):
    return ("arith_where" in q_.flags and ra.error is None and rb.error is not None
            and rb.error.get("C") in ("22003", "22012") and INNER_EMPTY_RE.search(q_.sql) is not None)


LIMIT_RE = re.compile(r"\s+(LIMIT \d+( OFFSET \d+)?|OFFSET \d+ ROWS FETCH FIRST \d+ ROWS (ONLY|WITH TIES)|"
                      r"FETCH FIRST \d+ ROWS (ONLY|WITH TIES))\s*$")


# PostgreSQL's own plans, tried (GPU off) when the forced run disagrees: if one of them
# gives what the forced run gave, the difference is the query's (which rows a plan
# evaluates an erroring expression on, the order of float additions, a tie), not pg_gpu's.
ALT_PLANS = [
    "max_parallel_workers_per_gather = 0",
    "max_parallel_workers_per_gather = 2; parallel_setup_cost = 0; parallel_tuple_cost = 0; "
    "min_parallel_table_scan_size = 0",
    "max_parallel_workers_per_gather = 0; enable_hashjoin = off; enable_mergejoin = off",
    "max_parallel_workers_per_gather = 0; enable_hashjoin = off; enable_nestloop = off",
    "max_parallel_workers_per_gather = 0; enable_nestloop = off; enable_mergejoin = off",
    "max_parallel_workers_per_gather = 0; enable_hashagg = off",
    "max_parallel_workers_per_gather = 0; enable_seqscan = off; enable_hashjoin = off",
    "max_parallel_workers_per_gather = 0; work_mem = '64kB'",
    "max_parallel_workers_per_gather = 0; enable_sort = off",
    "max_parallel_workers_per_gather = 0; enable_indexscan = off; enable_indexonlyscan = off; "
    "enable_bitmapscan = off",
    # a parallel hash join builds its hash table before it reads the outer side
    "max_parallel_workers_per_gather = 2; parallel_setup_cost = 0; parallel_tuple_cost = 0; "
    "min_parallel_table_scan_size = 0; enable_mergejoin = off; enable_nestloop = off",
]

ALLOWED_ONE_SIDED = [
    ("empty side read last", _one_sided_empty_side,
     "only the forced run failed, on WHERE arithmetic that overflows or divides by zero, in "
     "a query that inner-joins the empty table de (a LEFT JOIN its WHERE makes inner): "
     "PostgreSQL's plans join de before they "
     "read the rows that raise, the forced plan read them first (a GPU join building its key "
     "set from them, or PostgreSQL's Hash Join fetching its outer side's first row before it "
     "builds its hash table, as it does whenever the outer side's start-up costs less than "
     "the hash: a seq scan's always, every GPU path's under pg_gpu.force); a plan with the "
     "fact table's scan on that side raises the same error (fuzz seed 41, --shapes star)"),
    ("float order", _one_sided_float_overflow,
     "a float sum over values of both signs whose same-signed part exceeds DBL_MAX, or an "
     "avg/var/stddev (float8_accum) over values whose squares overflow next to infinities: "
     "whether an overflow is raised depends on the order of the rows, which PostgreSQL's "
     "parallel plans change too (the generator flags only the expressions it cannot prove "
     "safe)"),
    ("build side read first", _one_sided_eager_build,
     "only the forced run failed, on a subquery key expression that overflows (-d.k with "
     "k = -2^31): a key set is built from the subquery's rows before the probe side is read, "
     "as PostgreSQL's parallel hash join builds its hash table (it raises the same error when "
     "the probe side turns out empty, e.g. SELECT count(*) FROM ep a WHERE NOT EXISTS (SELECT 1 "
     "FROM eb d WHERE -d.k = a.i8) AND a.id < 0 under a Parallel Hash Anti Join); the serial "
     "hash, merge and nested-loop joins skip the inner side when the outer is empty"),
]


# ----------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------
class Session:
    def __init__(self, srv, db, label, setup_sql):
        self.srv, self.db, self.label, self.setup_sql = srv, db, label, setup_sql
        self.conn = None

    def connect(self, wait=90):
        t0 = time.time()
        last = None
        while time.time() - t0 < wait:
            try:
                self.conn = PgConn(self.srv.host, self.srv.port, self.srv.user, self.db,
                                   app="pg_gpu_fuzz_" + self.label)
                res = self.conn.query(self.setup_sql)
                if res.error:
                    raise RuntimeError("session setup failed: %s" % res.error.get("M"))
                for name, src, kind in DICTS:
                    res = self.conn.query("SELECT pg_gpu_dict_create('%s', '%s', '%s')" % (
                        name, src.replace("'", "''"), kind))
                    if res.error:
                        raise RuntimeError("session setup failed: %s" % res.error.get("M"))
                return
            except (OSError, ConnLost, RuntimeError) as e:
                last = e
                if "session setup failed" in str(e):
                    raise
                time.sleep(0.5)
        raise RuntimeError("cannot connect to the server (%s): %s" % (self.label, last))

    def run(self, sql, timeout):
        return self.conn.query(sql, timeout=timeout)

    def runq(self, q_, sql, timeout):
        res = self.conn.query(sql, timeout=timeout, accumulate=q_.accumulate)
        if q_.multi and res.error:
            # an error skipped the rest of the statements: leave no transaction open
            self.conn.query("ROLLBACK; DEALLOCATE ALL; CLOSE ALL", timeout=30)
        return res


def stats_snapshot(conn):
    res = conn.query("SELECT node, gpu_executions, emulated_runs, cpu_fallbacks FROM pg_gpu_stats "
                     "UNION ALL SELECT node || ': ' || reason, 0, 0, count FROM pg_gpu_fallbacks")
    out = {}
    for node, g, e, f in res.rows:
        out[node] = (int(g), int(e), int(f))
    return out


def stats_delta(a, b):
    runs, fbs = collections.Counter(), collections.Counter()
    for node, (g, e, f) in b.items():
        g0, e0, f0 = a.get(node, (0, 0, 0))
        if node in GPU_NODES:
            if g + e - g0 - e0:
                runs[node] += g + e - g0 - e0
        elif f - f0:
            fbs[node] += f - f0
    return runs, fbs


def trunc_rows(res, n=12):
    if res is None:
        return "(none)"
    if res.error:
        return "ERROR %s: %s" % (res.error.get("C"), res.error.get("M"))
    lines = [" | ".join(c for c, _ in res.cols)]
    for row in res.rows[:n]:
        line = " | ".join("NULL" if v is None else (v if len(v) < 80 else v[:60] + "...(%d)" % len(v))
                          for v in row)
        lines.append(line)
    if len(res.rows) > n:
        lines.append("... (%d rows)" % len(res.rows))
    else:
        lines.append("(%d rows)" % len(res.rows))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--queries", type=int, default=int(os.environ.get("FUZZ_QUERIES", 300)))
    ap.add_argument("--rows", type=int, default=int(os.environ.get("FUZZ_ROWS", 40000)),
                    help="rows of the fact table (default 40000)")
    ap.add_argument("--existing", action="store_true",
                    default=os.environ.get("FUZZ_EXISTING", "") not in ("", "0"))
    ap.add_argument("--emulate", dest="emulate", action="store_true", default=None)
    ap.add_argument("--no-emulate", dest="emulate", action="store_false")
    ap.add_argument("--only", default=None, help="comma-separated query indexes to run")
    ap.add_argument("--shapes", default=None, help="comma-separated shapes to generate")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("FUZZ_TIMEOUT", 120)),
                    help="statement timeout in seconds")
    ap.add_argument("--keep", action="store_true", help="keep the cluster / database")
    ap.add_argument("--server-log", default=os.environ.get("FUZZ_SERVER_LOG"),
                    help="--existing: the server's log, to find crashes")
    ap.add_argument("--report-dir", default=os.path.join(ROOT, "tmp", "fuzz"))
    ap.add_argument("--gpu-set", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting for the forced session (repeatable), e.g. pg_gpu.table_cache_size=0")
    ap.add_argument("--minimize", action="store_true",
                    help="a failure that depends on earlier queries: find the fewest that cause it")
    ap.add_argument("--print-sql", action="store_true", help="print every query (no database)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2 ** 31)
    emulate = (not args.existing) if args.emulate is None else args.emulate
    print("fuzz: seed %d (replay: scripts/fuzz.py --seed %d%s)" % (
        seed, seed, " --existing" if args.existing else ""), flush=True)
    t_start = time.time()
    data = Data(seed, args.rows)
    gen = Gen(seed, data)
    shapes = set(args.shapes.split(",")) if args.shapes else None
    indexes = [int(x) for x in args.only.split(",")] if args.only else list(range(args.queries))
    queries = [gen.make(i, shapes) for i in indexes]
    if args.print_sql:
        for q_ in queries:
            for m in q_.mutation or []:
                print("-- mutation (committed, GPU off):\n%s;" % m)
            print("-- %d [%s] %s%s\n%s;" % (q_.idx, q_.shape, "; ".join(q_.settings + q_.gpu_settings),
                                            " off: " + q_.sql_off if q_.sql_off else "", q_.sql))
        return 0

    os.makedirs(args.report_dir, exist_ok=True)
    srv = ExistingServer(args.server_log) if args.existing else OwnCluster(keep=args.keep)
    dbname = "pg_gpu_fuzz_%d" % seed
    rc = 1
    try:
        srv.start()
        admin = PgConn(srv.host, srv.port, srv.user, srv.admin_db)
        admin.query("DROP DATABASE IF EXISTS %s" % dbname)
        res = None
        for loc in ("C.UTF-8", "C.utf8", "C"):
            res = admin.query("CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' "
                              "LC_COLLATE '%s' LC_CTYPE '%s'" % (dbname, loc, loc))
            if not res.error:
                break
        if res.error:
            sys.exit("fuzz: CREATE DATABASE failed: %s" % res.error.get("M"))
        admin.close()
        rc = run_all(args, seed, srv, dbname, data, queries, emulate, t_start)
    finally:
        if not args.keep:
            try:
                admin = PgConn(srv.host, srv.port, srv.user, srv.admin_db)
                admin.query("DROP DATABASE IF EXISTS %s WITH (FORCE)" % dbname)
                admin.close()
            except Exception:
                pass
        else:
            print("fuzz: kept: psql -h %s -p %d -U %s -d %s" % (srv.host, srv.port, srv.user, dbname))
            if isinstance(srv, OwnCluster):
                print("fuzz: stop it with: %s%s/pg_ctl -D %s stop; rm -rf %s"
                      % ("runuser -u postgres -- " if srv.root else "", srv.bindir, srv.data, srv.base))
        if not args.keep:
            srv.stop()
    return rc


def run_all(args, seed, srv, dbname, data, queries, emulate, t_start):
    common = ("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'; SET extra_float_digits = 1; "
              "SET statement_timeout = '%ds'; SET client_min_messages = warning; " % int(args.timeout))
    if isinstance(srv, OwnCluster):
        common += "SET lc_messages = 'C'; "
    off = Session(srv, dbname, "off", common + "SET pg_gpu.enabled = off;")
    gpu = Session(srv, dbname, "forced", common + "SET pg_gpu.force = on;" +
                  (" SET pg_gpu.emulate_gpu = on;" if emulate else "") +
                  "".join(" SET %s = %s;" % tuple(x.split("=", 1)) for x in args.gpu_set))

    # load
    t0 = time.time()
    loader = PgConn(srv.host, srv.port, srv.user, dbname)
    for sql in ("CREATE EXTENSION IF NOT EXISTS pg_gpu", "SET synchronous_commit = on"):
        res = loader.query(sql)
        if res.error:
            sys.exit("fuzz: %s: %s" % (sql, res.error.get("M")))
    for sql, payload in setup_statements(data):
        res = loader.query(sql, copy_data=payload)
        if res.error:
            sys.exit("fuzz: setup failed: %s: %s" % (sql[:80], res.error.get("M") + (" (%s)" % res.error["W"] if res.error.get("W") else "")))
    if args.existing:
        time.sleep(0.5)      # synchronous_commit = off servers: let the hint bits settle
        loader.query("VACUUM fv")
        loader.query("VACUUM du")
    ver = loader.query("SELECT extversion FROM pg_extension WHERE extname = 'pg_gpu'").rows
    loader.close()
    t_setup = time.time() - t0
    print("fuzz: data loaded in %.1fs (f: %d rows, fv, dk: %d, du: %d, de: 0); pg_gpu %s; %s; %d queries"
          % (t_setup, data.N, len(data.dk), len(data.du), ver[0][0] if ver else "?",
             "engine emulated on the CPU" if emulate else "real GPU", len(queries)), flush=True)
    srv.new_log()
    off.connect()
    gpu.connect()

    tot = collections.Counter()
    per_shape = collections.defaultdict(collections.Counter)
    node_runs, fb_reasons = collections.Counter(), collections.Counter()
    failures, allowed, both_err = [], [], []
    tolerated_values = tolerated_queries = 0
    log_lines = []
    timeouts = 0

    by_idx = {q_.idx: q_ for q_ in queries}
    set_errors = set()

    def check_set(res):
        if res.error and res.error.get("M") not in set_errors:
            set_errors.add(res.error.get("M"))
            print("fuzz: WARNING: a setting was refused: %s (the query runs without it)"
                  % res.error.get("M"), flush=True)
    history = []     # the queries the forced session has run: a failure may be their doing

    def reconnect():
        for s in (off, gpu):
            try:
                s.conn.close()
            except Exception:
                pass
        time.sleep(1)
        off.connect(120)
        gpu.connect(120)
        del history[:]

    def same_outcome(q_, ra, rf):
        if ra.error or rf.error:
            return bool(ra.error and rf.error and ra.error.get("C") == rf.error.get("C"))
        return compare_rows(q_, ra, rf)[0]

    def fresh_check(q_, ra):
        """Run the query again in a new forced session, which then replaces the old one
        (so that state one failure left behind does not fail every later query)."""
        fresh = Session(srv, dbname, "forced", gpu.setup_sql)
        try:
            fresh.connect(60)
            fresh.run(settings_sql(q_, True), 30)
            rf = fresh.runq(q_, q_.sql, args.timeout + 30)
        except (ConnLost, RuntimeError) as e:
            return "a fresh forced session: %s" % e, None
        prior = [i for i in history if i != q_.idx]
        try:
            gpu.conn.close()
        except Exception:
            pass
        gpu.conn = fresh.conn
        del history[:]
        if same_outcome(q_, ra, rf):
            note = ("a fresh forced session gives the right result: state left by the session's "
                    "earlier queries (%d of them)" % len(prior))
            if args.minimize:
                prior = minimize(q_, ra, prior)
                note += "; these suffice: %s" % ",".join(str(i) for i in prior)
            return note, prior
        return "a fresh forced session fails the same way", None

    def fails_after(q_, ra, prior, tries=2):
        """Does q_ fail after the given earlier queries?  Some such failures depend on
        what memory held: a trial that passes is tried again."""
        for _ in range(tries):
            if fails_after_once(q_, ra, prior):
                return True
        return False

    def fails_after_once(q_, ra, prior):
        sess = Session(srv, dbname, "forced_min", gpu.setup_sql)
        try:
            sess.connect(60)
            for i in prior:
                p_ = by_idx[i]
                sess.run(settings_sql(p_, True), 30)
                sess.runq(p_, p_.sql, args.timeout + 30)
            sess.run(settings_sql(q_, True), 30)
            rf = sess.runq(q_, q_.sql, args.timeout + 30)
        except ConnLost:
            reconnect()
            return True
        finally:
            try:
                sess.conn.close()
            except Exception:
                pass
        return not same_outcome(q_, ra, rf)

    def minimize(q_, ra, prior):
        """Greedy delta debugging: the fewest earlier queries after which q_ still fails."""
        if not fails_after(q_, ra, prior):
            if os.environ.get("FUZZ_DEBUG"):
                print("fuzz: minimize: the whole history does not fail again", flush=True)
            return prior
        n = 2
        while len(prior) > 1:
            chunk = max(1, len(prior) // n)
            for i in range(0, len(prior), chunk):
                trial = prior[:i] + prior[i + chunk:]
                if fails_after(q_, ra, trial):
                    prior, n = trial, max(n - 1, 2)
                    break
            else:
                if chunk == 1:
                    break
                n = min(len(prior), n * 2)
        return prior

    def try_alternatives(q_, rb):
        """The first PostgreSQL plan (GPU off) that gives the forced run's outcome."""
        for alt in ALT_PLANS:
            try:
                # the alternative alone: the query's own settings (work_mem, ...) reset
                plain = Query(q_.idx, q_.shape)
                off.run(settings_sql(plain, False) + " RESET enable_nestloop; RESET enable_mergejoin; "
                        "RESET enable_seqscan;" + "".join(" SET %s;" % x for x in alt.split("; ")), 30)
                rc = off.runq(q_, q_.sql_off or q_.sql, args.timeout + 30)
            except ConnLost:
                reconnect()
                return None
            if rb.error:
                if rc.error and rc.error.get("C") == rb.error.get("C"):
                    return alt
            elif not rc.error and compare_rows(q_, rc, rb)[0]:
                return alt
        # an error only the forced run raised, from rows past a LIMIT: PostgreSQL raises it
        # too when its plan reads every row (HashAggregate, Sort) rather than stopping early
        # (Sort + GroupAggregate + Limit, an index scan)
        base = q_.sql_off or q_.sql
        if rb.error and not q_.multi:
            stripped = LIMIT_RE.sub("", base)
            if stripped != base:
                plain = Query(q_.idx, q_.shape)
                off.run(settings_sql(plain, False), 30)
                rc = off.runq(q_, stripped, args.timeout + 30)
                if rc.error and rc.error.get("C") == rb.error.get("C"):
                    return "no LIMIT (the forced plan reads the rows past the LIMIT)"
        return None

    def settings_sql(q_, forced):
        s = ["SET %s" % x for x in q_.settings]
        if forced:
            s += ["SET %s = %s" % tuple(x.split("=", 1)) for x in args.gpu_set]
            s += ["SET %s" % x for x in q_.gpu_settings]
        return "RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost; " \
               "RESET min_parallel_table_scan_size; RESET min_parallel_index_scan_size; RESET enable_hashagg; " \
               "RESET enable_hashjoin; RESET work_mem; RESET plan_cache_mode; RESET enable_nestloop; " \
               "RESET enable_mergejoin; RESET enable_seqscan; RESET enable_sort; RESET enable_indexscan; " \
               "RESET enable_indexonlyscan; RESET enable_bitmapscan;" + \
               (" RESET pg_gpu.chunk_pages; RESET pg_gpu.direct_groups; RESET pg_gpu.join_batch_rows; "
                "RESET pg_gpu.table_cache_size; RESET pg_gpu.slot_sort_memory; RESET pg_gpu.min_rows;"
                if forced else "") + "".join(" %s;" % x for x in s)

    for n, q_ in enumerate(queries):
        shape = q_.shape
        per_shape[shape]["queries"] += 1
        tot["queries"] += 1
        crash = None
        ra = rb = None
        plan = ""
        runs = fbs = collections.Counter()
        try:
            stage = "mutation"
            for stmt in q_.mutation or []:
                off.run("RESET ALL; SET pg_gpu.enabled = off", 30)
                res = off.run(stmt, 120)
                if res.error:
                    print("fuzz: WARNING: mutation before query %d failed: %s: %s" % (
                        q_.idx, stmt, res.error.get("M")), flush=True)
            off.run(off.setup_sql, 30)
            stage = "off"
            check_set(off.run(settings_sql(q_, False), 30))
            ra = off.runq(q_, q_.sql_off or q_.sql, args.timeout + 30)
            stage = "forced"
            check_set(gpu.run(settings_sql(q_, True), 30))
            s0 = stats_snapshot(off.conn)
            rb = gpu.runq(q_, q_.sql, args.timeout + 30)
            s1 = stats_snapshot(off.conn)
            history.append(q_.idx)
            runs, fbs = stats_delta(s0, s1)
            stage = "forced EXPLAIN"
            if q_.explain or not q_.multi:
                pe = gpu.run("EXPLAIN (COSTS OFF) " + (q_.explain or q_.sql), 60)
                plan = "\n".join(x[0] for x in pe.rows) if not pe.error else \
                    "EXPLAIN failed: %s" % pe.error.get("M")
        except ConnLost as e:
            time.sleep(1.5)
            text = srv.new_log()
            sig = [l for l in text.splitlines() if "terminated by signal" in l or "PANIC" in l
                   or "was terminated" in l]
            crash = "connection lost during the %s run (%s)%s" % (
                stage, e, ("; server log: " + " / ".join(sig[:3])) if sig else "")
            try:
                reconnect()
            except RuntimeError as e2:
                print("fuzz: cannot reconnect after a crash: %s" % e2)
                failures.append(dict(kind="crash", q=q_, why=crash, ra=ra, rb=rb, plan=plan))
                tot["crashes"] += 1
                per_shape[shape]["crashes"] += 1
                break
        planned = any(nd in plan for nd in ("GpuAgg", "GpuSort", "GpuHashJoin", "GpuSemiJoin")) or \
            ("gpu_" in q_.sql)
        ran = sum(runs.values()) > 0
        node_runs.update(runs)
        fb_reasons.update(fbs)
        if planned:
            per_shape[shape]["planned"] += 1
            tot["planned"] += 1
        if ran:
            per_shape[shape]["ran_gpu"] += 1
            tot["ran_gpu"] += 1
        if fbs:
            per_shape[shape]["fell_back"] += 1
            tot["fell_back"] += 1
        status = "ok"
        why = ""
        if crash:
            status, why = "crash", crash
        elif ra.error and rb.error:
            ca, cb = ra.error.get("C", ""), rb.error.get("C", "")
            if ca == "57014" or cb == "57014":
                status = "timeout" if ca != cb else "both_timeout"
                why = "off: %s / forced: %s" % (ra.error.get("M"), rb.error.get("M"))
            elif ca == cb:
                status = "both_error"
                tot["err:" + ra.error.get("M", "")[:60]] += 1
            elif ca[:2] == cb[:2]:
                status = "both_error_class"
                why = "%s vs %s (same class): %s / %s" % (ca, cb, ra.error.get("M"), rb.error.get("M"))
            else:
                status = "different_errors"
                why = "off %s: %s / forced %s: %s" % (ca, ra.error.get("M"), cb, rb.error.get("M"))
        elif ra.error or rb.error:
            err = ra.error or rb.error
            side = "off" if ra.error else "forced"
            if err.get("C") == "57014":
                status = "timeout"
                why = "%s run timed out" % side
            else:
                status = "one_sided"
                why = "only the %s run failed: %s: %s" % (side, err.get("C"), err.get("M"))
                for name, test, just in ALLOWED_ONE_SIDED:
                    if test(q_, ra, rb):
                        status = "allowed_one_sided"
                        why = "%s [%s]" % (why, name)
                        break
        else:
            if ra.truncated or rb.truncated:
                status, why = "skipped", "result over %d rows" % PgConn.MAX_ROWS
            else:
                ok, why, cmp = compare_rows(q_, ra, rb)
                tolerated_values += cmp.tolerated
                if cmp.tolerated:
                    tolerated_queries += 1
                    per_shape[shape]["tolerance"] += 1
                status = "ok" if ok else "mismatch"
        if status in ("mismatch", "one_sided", "different_errors"):
            alt = try_alternatives(q_, rb)
            if alt:
                why = "%s [PostgreSQL's own plan with %s gives the forced result]" % (why, alt)
                status = "allowed_one_sided" if status != "mismatch" else "plan_dependent"
        prior = None
        if status in ("mismatch", "one_sided", "different_errors"):
            note, prior = fresh_check(q_, ra)
            why = "%s [%s]" % (why, note)
            if prior is not None:
                tot["state_dependent"] += 1
        tot[status] += 1
        per_shape[shape][status] += 1
        if status == "plan_dependent":
            allowed.append(dict(kind=status, q=q_, why=why, ra=ra, rb=rb, plan=plan))
        if status in ("mismatch", "one_sided", "different_errors", "crash"):
            failures.append(dict(kind=status, q=q_, why=why, ra=ra, rb=rb, plan=plan, prior=prior))
            print("\nfuzz: FAIL %s: seed %d, query %d [%s]: %s\n  %s\n" % (
                status, seed, q_.idx, shape, why, q_.sql), flush=True)
        elif status == "allowed_one_sided":
            allowed.append(dict(kind=status, q=q_, why=why, ra=ra, rb=rb, plan=plan))
        elif status in ("both_error_class",):
            both_err.append(dict(q=q_, why=why))
        elif status == "timeout":
            timeouts += 1
            failures.append(dict(kind=status, q=q_, why=why, ra=ra, rb=rb, plan=plan))
            print("\nfuzz: FAIL timeout: seed %d, query %d: %s" % (seed, q_.idx, why), flush=True)
        log_lines.append("%4d %-10s %-18s gpu=%s fb=%s %6.2fs/%6.2fs %s%s" % (
            q_.idx, shape, status, ",".join("%s:%d" % kv for kv in runs.items()) or "-",
            ",".join("%s" % k for k in fbs) or "-",
            ra.seconds if ra else 0, rb.seconds if rb else 0,
            ("[%s] " % (ra.error or rb.error).get("M", "")[:70]) if ra and rb and (ra.error or rb.error) else "",
            q_.sql.replace("\n", " ")))
        if args.verbose:
            print(log_lines[-1], flush=True)
        elif (n + 1) % 50 == 0:
            print("fuzz: %d/%d queries, %d ran on the GPU, %d failures so far (%.0fs)" % (
                n + 1, len(queries), tot["ran_gpu"], len(failures), time.time() - t_start), flush=True)

    for s in (off, gpu):
        try:
            s.conn.close()
        except Exception:
            pass
    # crashes the connections did not see (a parallel worker's, say)
    tail = srv.new_log()
    extra_crash = [l for l in tail.splitlines() if "terminated by signal" in l]

    elapsed = time.time() - t_start
    nq = len(queries)
    mism = tot["mismatch"]
    one = tot["one_sided"] + tot["different_errors"]
    crashes = tot["crash"] + (1 if extra_crash and not tot["crash"] else 0)
    # report
    rep = []
    rep.append("# pg_gpu fuzz report: seed %d\n" % seed)
    rep.append("%d queries, %.0fs, %s, fact table %d rows, database %s\n" % (
        nq, elapsed, "emulated engine" if emulate else "GPU", data.N, dbname))
    rep.append("\n%s\n" % build_identity())
    rep.append("replay: `python3 scripts/fuzz.py --seed %d --queries %d --rows %d%s%s`; one query: "
               "`--only IDX --keep` (then psql into the kept database)\n" % (
                   seed, nq, data.N, " --existing" if args.existing else "",
                   "" if emulate == (not args.existing) else (" --emulate" if emulate else " --no-emulate")))
    rep.append("\n## Summary\n\n```\n")
    summary = summarize(tot, per_shape, node_runs, fb_reasons, tolerated_values, tolerated_queries,
                        allowed, both_err, timeouts)
    rep.append(summary + "```\n")
    if extra_crash:
        rep.append("\nServer log crash lines:\n```\n%s\n```\n" % "\n".join(extra_crash[:20]))
    for title, items in (("Failures", failures), ("One-sided errors PostgreSQL could produce too "
                                                 "(not failures)", allowed)):
        if not items:
            continue
        rep.append("\n## %s\n" % title)
        for f in items:
            q_ = f["q"]
            rep.append("\n### query %d [%s]: %s\n\n%s\n" % (q_.idx, q_.shape, f["kind"], f["why"]))
            rep.append("\nsettings (both): `%s`; forced only: `%s`\n" % (
                "; ".join(q_.settings) or "-", "; ".join(
                    ["pg_gpu.force = on"] + (["pg_gpu.emulate_gpu = on"] if emulate else []) + q_.gpu_settings)))
            rep.append("\n```sql\n%s;\n```\n" % q_.sql)
            if q_.sql_off:
                rep.append("reference (pg_gpu.enabled = off) ran:\n```sql\n%s;\n```\n" % q_.sql_off)
            rep.append("\noff:\n```\n%s\n```\nforced:\n```\n%s\n```\n" % (
                trunc_rows(f["ra"], 40), trunc_rows(f["rb"], 40)))
            if f.get("plan"):
                rep.append("forced plan:\n```\n%s\n```\n" % f["plan"])
            if f.get("prior"):
                rep.append("\nthe forced session had run before it (the query alone passes: find the "
                           "culprits by bisecting `--only LIST,%d`): %s\n" % (
                               q_.idx, ",".join(str(x) for x in f["prior"])))
            rep.append("\nrepro: `python3 scripts/fuzz.py --seed %d --rows %d --only %d --keep`, or "
                       "`psql -f tmp/fuzz/seed-%d-data.sql` into a fresh database, then the settings and "
                       "the query above\n" % (seed, data.N, q_.idx, seed))
    if both_err:
        rep.append("\n## Both errored, same SQLSTATE class, different code\n")
        for b in both_err:
            rep.append("- query %d: %s\n" % (b["q"].idx, b["why"]))
    rep.append("\n## All queries\n\n```\n%s\n```\n" % "\n".join(log_lines))
    path = os.path.join(args.report_dir, "seed-%d.md" % seed)
    with open(path, "w") as fh:
        fh.write("".join(rep))
    if failures:
        write_setup_script(os.path.join(args.report_dir, "seed-%d-data.sql" % seed), data, dbname)
        print("\nfuzz: %d failures:" % len(failures))
        for f in failures:
            q_ = f["q"]
            print("\n--- seed %d, query %d [%s]: %s: %s" % (seed, q_.idx, q_.shape, f["kind"], f["why"]))
            print("settings: %s | forced: %s" % ("; ".join(q_.settings) or "-", "; ".join(q_.gpu_settings) or "-"))
            print(q_.sql + ";")
            print("off:\n  " + trunc_rows(f["ra"], 6).replace("\n", "\n  "))
            print("forced:\n  " + trunc_rows(f["rb"], 6).replace("\n", "\n  "))
            print("repro: python3 scripts/fuzz.py --seed %d --rows %d --only %d --keep" % (seed, data.N, q_.idx))
    print("\n" + summary, end="")
    print("fuzz: report %s" % os.path.relpath(path, os.getcwd()))
    print("fuzz: seed %d, %d queries, %d ran on the GPU%s, %d mismatches, %d one-sided errors, %d crashes"
          "%s (%.0fs)" % (seed, nq, tot["ran_gpu"], " (emulated)" if emulate else "", mism, one, crashes,
                          (", %d timeouts" % timeouts) if timeouts else "", elapsed))
    return 0 if not (mism or one or crashes or timeouts) else 1


def build_identity():
    """Which pg_gpu ran: the installed library's time and the tree's commit."""
    out = []
    try:
        lib = subprocess.run([os.path.join(pg_bindir(), "pg_config"), "--pkglibdir"],
                             capture_output=True, text=True).stdout.strip()
        st = os.stat(os.path.join(lib, "pg_gpu.so"))
        out.append("pg_gpu.so installed %s" % time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(st.st_mtime)))
    except Exception:
        pass
    try:
        head = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %cd", "--date=iso"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src", "cuda"],
                               capture_output=True, text=True).stdout.strip()
        out.append("tree at %s%s" % (head, " (src/cuda modified)" if dirty else ""))
    except Exception:
        pass
    return "; ".join(out)


def summarize(tot, per_shape, node_runs, fb_reasons, tolv, tolq, allowed, both_err, timeouts):
    lines = []
    hdr = "%-10s %6s %7s %7s %9s %5s %8s %8s %6s %5s" % (
        "shape", "count", "planned", "ran_gpu", "fell_back", "ok", "both_err", "mismatch", "1sided", "crash")
    lines.append(hdr)
    for shape, _ in SHAPES:
        c = per_shape.get(shape)
        if not c:
            continue
        lines.append("%-10s %6d %7d %7d %9d %5d %8d %8d %6d %5d" % (
            shape, c["queries"], c["planned"], c["ran_gpu"], c["fell_back"], c["ok"],
            c["both_error"] + c["both_error_class"] + c["both_timeout"], c["mismatch"],
            c["one_sided"] + c["different_errors"], c["crash"]))
    lines.append("%-10s %6d %7d %7d %9d %5d %8d %8d %6d %5d" % (
        "total", tot["queries"], tot["planned"], tot["ran_gpu"], tot["fell_back"], tot["ok"],
        tot["both_error"] + tot["both_error_class"] + tot["both_timeout"], tot["mismatch"],
        tot["one_sided"] + tot["different_errors"], tot["crash"]))
    lines.append("GPU node executions (pg_gpu_stats gpu_executions + emulated_runs): " +
                 (", ".join("%s %d" % kv for kv in sorted(node_runs.items())) or "none"))
    lines.append("fallbacks by reason: " + (", ".join("%s %d" % kv for kv in fb_reasons.most_common()) or "none"))
    lines.append("float comparisons that needed the tolerance: %d values in %d queries" % (tolv, tolq))
    if allowed:
        lines.append("one-sided errors PostgreSQL could produce too (allowed): %d (%s)" % (
            len(allowed), "; ".join(sorted(set(a["why"].rsplit("[", 1)[-1].rstrip("]") for a in allowed)))))
    if both_err:
        lines.append("both errored with different SQLSTATEs of one class: %d" % len(both_err))
    if tot["skipped"]:
        lines.append("skipped (too many rows): %d" % tot["skipped"])
    if timeouts:
        lines.append("one-sided timeouts: %d" % timeouts)
    if tot["state_dependent"]:
        lines.append("failures that a fresh forced session does not repeat (state left by earlier "
                     "queries): %d" % tot["state_dependent"])
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
