#!/usr/bin/env python3
"""pgcheck's comparison: each file's GPU-off output against its forced output.

Both outputs are normalised first:
  - plan text: a result table printed for an EXPLAIN (its header is "QUERY PLAN", or
    the statement that printed it starts with EXPLAIN or calls a function whose name
    contains "explain", as explain_filter() and its kind in the files do)
    becomes one line "<plan>": GPU plans are meant to differ;
  - names that differ between the two databases: the database's own name, temporary
    schemas' backend numbers (pg_temp_N), toast tables' OIDs;
  - the rows of a result table whose statement has no ORDER BY (and is no FETCH or
    EXECUTE, whose order comes from elsewhere) are sorted: SQL leaves their order open.
Then difflib's opcodes give the hunks.  A hunk is allowed when an entry of the allow
list (file | regex | reason) matches its statement or its lines; anything else is
unexplained and fails the check, as does a crash or a lost connection.

Writes <outdir>/diff/<test>.diff and <outdir>/report.txt, prints the report.
"""
import argparse
import difflib
import glob
import os
import re
import sys

DASH = re.compile(r'^-+(\+-+)*$')
FOOTER = re.compile(r'^\((\d+) rows?\)$')
MESSAGE = re.compile(r'^(psql:\S+: )?(ERROR|WARNING|NOTICE|INFO|DEBUG\d?|LOG|DETAIL|HINT|CONTEXT|STATEMENT|LINE \d+|FATAL|PANIC):')
CARET = re.compile(r'^\s+\^\s*$')
CRASH = re.compile(r'server closed the connection unexpectedly|connection to server was lost|'
                   r'terminating connection because of crash of another server process|'
                   r'the database system is in recovery mode|no connection to the server|TIMEOUT after')
VICTIM = re.compile(r'terminating connection because of crash of another server process')
EXPLAIN_STMT = re.compile(r'(?is)^\s*explain\b|\b\w*explain\w*\s*\(')
ORDER = re.compile(r'(?i)\border\s+by\b')
ORDERED_ELSEWHERE = re.compile(r'(?i)^\s*(fetch|execute|move)\b|\bfetch\s+(all|next|prior|first|last|forward|backward|\d+)')


def substitutions(test):
    us = '(?:_x005F_|_)'        # an underscore, or as table_to_xmlschema escapes it
    db = 'pgcheck' + us + '(?:off|gpu)' + us + us.join(re.escape(p) for p in test.split('_'))
    return [
        (re.compile(db + r'\b'), 'pgcheck_DB'),
        (re.compile(r'\bpg_temp_\d+'), 'pg_temp_N'),
        (re.compile(r'\bpg_toast_temp_\d+'), 'pg_toast_temp_N'),
        (re.compile(r'\bpg_toast_\d+'), 'pg_toast_N'),
    ]


def last_statement(ctx):
    """The statement that printed the output: the echoed lines after the last one
    ending a previous statement (psql echoes statements without output too)."""
    lines = [l for l in ctx if l.strip() and not l.lstrip().startswith('--')]
    for k in range(len(lines) - 2, -1, -1):
        if lines[k].rstrip().endswith(';'):
            return '\n'.join(lines[k + 1:])
    return '\n'.join(lines)


def normalise(text, test):
    """-> list of (line, context, table_id); context is the statement text echoed
    before the line's output."""
    subs = substitutions(test)
    lines = text.split('\n')
    for i, l in enumerate(lines):
        for rx, rep in subs:
            l = rx.sub(rep, l)
        lines[i] = l
    out = []
    tables = {}
    ctx = []          # echoed lines since the last result table or message
    fresh = False
    i, n, table_id = 0, len(lines), 0
    while i < n:
        l = lines[i]
        # a result table: " header " / "-----" of the same length / rows / "(N rows)"
        if (i + 1 < n and l.startswith(' ') and DASH.match(lines[i + 1])
                and len(lines[i + 1]) == len(l)):
            j = i + 2
            while j < n and not FOOTER.match(lines[j]) and j - i < 200000:
                j += 1
            if j < n:
                table_id += 1
                stmt = last_statement(ctx)
                context = '\n'.join(ctx[-60:])
                tables[table_id] = {'header': l, 'rows': lines[i + 2:j], 'stmt': stmt}
                if l.strip() == 'QUERY PLAN' or EXPLAIN_STMT.search(stmt):
                    out.append(('<plan>', context, table_id))
                else:
                    rows = lines[i + 2:j]
                    if not ORDER.search(stmt) and not ORDERED_ELSEWHERE.search(stmt):
                        rows = sorted(rows)
                    for r in [l, lines[i + 1]] + rows + [lines[j]]:
                        out.append((r, context, table_id))
                ctx, fresh = [], False
                i = j + 1
                continue
        if MESSAGE.match(l) or CARET.match(l):
            fresh = True            # the next echoed line starts a new statement
        else:
            if fresh:
                ctx, fresh = [], False
            ctx.append(l)
        out.append((l, '\n'.join(ctx[-60:]), 0))
        i += 1
    return out, tables


def order_columns(stmt, header):
    """The output columns of the statement's top-level ORDER BY when every key is a
    plain output column or ordinal, else None."""
    ms = list(ORDER.finditer(stmt))
    if not ms:
        return None
    tail = stmt[ms[-1].end():]
    depth = 0
    for ch in tail:
        depth += {'(': 1, ')': -1}.get(ch, 0)
        if depth < 0:
            return None         # that ORDER BY is inside parentheses
    tail = re.split(r'(?i)\b(?:limit|offset|fetch|for)\b|;', tail)[0]
    if '(' in tail:
        return None
    cols = [c.strip() for c in header.split('|')]
    idx = []
    for item in tail.split(','):
        item = re.sub(r'(?i)\s+(asc|desc)\b|\s+nulls\s+(first|last)\b', '', item).strip()
        if re.fullmatch(r'\d+', item):
            k = int(item) - 1
        else:
            m = re.fullmatch(r'(?:\w+\.)?(?:"([^"]+)"|(\w+))', item)
            if not m:
                return None
            name = m.group(1) or m.group(2).lower()
            if cols.count(name) != 1:
                return None
            k = cols.index(name)
        if not 0 <= k < len(cols):
            return None
        idx.append(k)
    return idx


def tie_order_only(ta, tb):
    """Both tables hold the same rows, in the same order of their ORDER BY keys, and
    differ only in the order of rows whose keys are equal (SQL leaves it open)."""
    if ta['stmt'] != tb['stmt'] or ta['header'] != tb['header']:
        return False
    ra, rb = ta['rows'], tb['rows']
    if len(ra) != len(rb) or ra == rb or any(r.endswith('+') for r in ra + rb):
        return False
    idx = order_columns(ta['stmt'], ta['header'])
    if not idx:
        return False
    ncol = len(ta['header'].split('|'))

    def split(r):
        c = [x.strip() for x in r.split('|')]
        return c if len(c) == ncol else None
    ca, cb = [split(r) for r in ra], [split(r) for r in rb]
    if None in ca or None in cb:
        return False
    ka, kb = [[c[k] for k in idx] for c in ca], [[c[k] for k in idx] for c in cb]
    if ka != kb:
        return False
    start = 0
    for i in range(1, len(ka) + 1):
        if i == len(ka) or ka[i] != ka[start]:
            if sorted(ra[start:i]) != sorted(rb[start:i]):
                return False
            start = i
    return True


TIES = {'line': 0, 'reason': 'rows with equal ORDER BY keys in another order (checked)', 'used': 0}


def load_allow(path):
    entries = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith('#'):
                continue
            parts = [p.strip() for p in s.split(' | ', 2)]
            if len(parts) != 3 or not parts[2]:
                sys.exit(f'{path}:{no}: want "file | regex | reason"')
            entries.append({'file': parts[0], 'rx': re.compile(parts[1]), 'reason': parts[2],
                            'line': no, 'used': 0})
    return entries


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def stats_delta(outdir, test):
    def parse(p):
        d = {}
        t = read(p) or ''
        for l in t.splitlines():
            f = l.split('|')
            if len(f) == 4:
                d[(f[0], f[1])] = (int(f[2]), int(f[3]))
        return d
    b, a = parse(os.path.join(outdir, 'stats', test + '.before')), parse(os.path.join(outdir, 'stats', test + '.after'))
    runs = fbs = 0
    reasons = {}
    for k, (r, fb) in a.items():
        r0, fb0 = b.get(k, (0, 0))
        if r < r0 or fb < fb0:      # counters reset by a crash's restart
            r0 = fb0 = 0
        if k[0] == 'S':
            runs += r - r0
            fbs += fb - fb0
        elif r - r0 > 0:
            reasons[k[1]] = r - r0
    return runs, fbs, reasons


def vs_expected(expected_dir, test, off_text):
    """lines differing from PostgreSQL's expected output (the best alternative)"""
    best = None
    for p in sorted(glob.glob(os.path.join(expected_dir, test + '.out')) +
                    glob.glob(os.path.join(expected_dir, test + '_[0-9].out'))):
        exp = read(p).split('\n')
        d = sum(1 for l in difflib.unified_diff(exp, off_text.split('\n'), n=0, lineterm='')
                if l[:1] in '+-' and not l.startswith(('+++', '---')))
        best = d if best is None else min(best, d)
    return best


def compare(test, outdir, allow):
    off_t = read(os.path.join(outdir, 'off', test + '.out'))
    gpu_t = read(os.path.join(outdir, 'gpu', test + '.out'))
    res = {'test': test, 'diff': 0, 'allowed': 0, 'unexplained': 0, 'crash': '', 'hunks': []}
    if off_t is None or gpu_t is None:
        res['crash'] = 'missing output'
        return res, off_t or ''
    for label, t in (('off', off_t), ('forced', gpu_t)):
        m = CRASH.search(t)
        if m:
            kind = 'lost connection (another backend crashed)' if VICTIM.search(t) else m.group(0)
            res['crash'] += f'{label}: {kind}; '
    crashlog = read(os.path.join(outdir, 'gpu', test + '.out.crashlog')) or ''
    if 'terminated by signal' in crashlog or 'PANIC' in crashlog:
        res['crash'] += 'server log: ' + ' / '.join(l.split(' ', 3)[-1] for l in crashlog.splitlines()[:2]) + '; '
    (a, tabs_a), (b, tabs_b) = normalise(off_t, test), normalise(gpu_t, test)
    al, bl = [x[0] for x in a], [x[0] for x in b]
    sm = difflib.SequenceMatcher(None, al, bl, autojunk=False)
    diff_text = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == 'equal':
            continue
        removed, added = al[i1:i2], bl[j1:j2]
        nlines = len(removed) + len(added)
        ctx = a[i1][1] if i1 < len(a) else (b[j1][1] if j1 < len(b) else '')
        body = '\n'.join(['-' + l for l in removed] + ['+' + l for l in added])
        hay = ctx + '\n' + body
        why = None
        ta = {x[2] for x in a[i1:i2]} | ({a[i1][2]} if i1 < len(a) else set())
        tb = {x[2] for x in b[j1:j2]} | ({b[j1][2]} if j1 < len(b) else set())
        if (len(ta) == 1 and len(tb) == 1 and 0 not in ta and 0 not in tb
                and tie_order_only(tabs_a[ta.pop()], tabs_b[tb.pop()])):
            why = TIES
        for e in allow if why is None else []:
            if e['file'] in (test, '*') and e['rx'].search(hay):
                why = e
                break
        note = ''
        if removed and sorted(removed) == sorted(added):
            note = ' (same lines, other order)'
        if why:
            why['used'] += 1
            res['allowed'] += nlines
            verdict = (f'allowed by line {why["line"]}: {why["reason"]}' if why['line']
                       else f'allowed: {why["reason"]}')
        else:
            res['unexplained'] += nlines
            verdict = 'UNEXPLAINED' + note
        res['diff'] += nlines
        stmt = [l for l in ctx.split('\n') if l.strip() and not l.lstrip().startswith('--')][-8:]
        diff_text.append(f'@@ off line {i1 + 1}, forced line {j1 + 1}: {verdict}\n'
                         + ''.join('   | ' + l + '\n' for l in stmt) + body + '\n')
        res['hunks'].append(verdict)
    p = os.path.join(outdir, 'diff', test + '.diff')
    if diff_text or res['crash']:
        with open(p, 'w') as f:
            if res['crash']:
                f.write('CRASH: ' + res['crash'] + '\n')
            f.write('\n'.join(diff_text))
    elif os.path.exists(p):
        os.remove(p)
    return res, off_t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--expected')
    ap.add_argument('--allow', required=True)
    ap.add_argument('--elapsed', type=int, default=0)
    ap.add_argument('tests', nargs='+')
    o = ap.parse_args()
    allow = load_allow(o.allow)
    rep = []
    tot = {'runs': 0, 'fbs': 0, 'diff': 0, 'allowed': 0, 'unexplained': 0, 'crash': 0}
    rep.append(f'{"file":<22}{"diff":>6}{"allowed":>8}{"unexpl":>7}{"gpu runs":>9}{"fallbk":>7}'
               f'{"vs exp":>7}{"secs":>9}  notes')
    for t in o.tests:
        r, off_t = compare(t, o.outdir, allow)
        runs, fbs, reasons = stats_delta(o.outdir, t)
        vexp = vs_expected(o.expected, t, off_t) if o.expected and off_t else None
        secs = '/'.join((read(os.path.join(o.outdir, 'stats', f'{t}.{m}.time')) or '?').strip()
                        for m in ('off', 'gpu'))
        notes = []
        if r['crash']:
            notes.append('CRASH ' + r['crash'].strip('; '))
            tot['crash'] += 1
        if reasons:
            notes.append('fallbacks: ' + ', '.join(f'{k} {v}' for k, v in sorted(reasons.items())))
        rep.append(f'{t:<22}{r["diff"]:>6}{r["allowed"]:>8}{r["unexplained"]:>7}{runs:>9}{fbs:>7}'
                   f'{"" if vexp is None else vexp:>7}{secs:>9}  {"; ".join(notes)}')
        tot['runs'] += runs
        tot['fbs'] += fbs
        for k in ('diff', 'allowed', 'unexplained'):
            tot[k] += r[k]
    rep.append(f'{"total":<22}{tot["diff"]:>6}{tot["allowed"]:>8}{tot["unexplained"]:>7}'
               f'{tot["runs"]:>9}{tot["fbs"]:>7}{"":>7}{o.elapsed:>9}')
    rep.append('(diff: differing lines after normalisation; allowed: those the allow list explains; '
               'gpu runs: GPU node executions in the forced run, emulated ones included; '
               'vs exp: GPU-off output against PostgreSQL\'s expected output; secs: off/forced)')
    for l in (read(os.path.join(o.outdir, 'reruns.txt')) or '').splitlines():
        rep.append('note: ' + l)
    unused = [e for e in allow if e['used'] == 0 and (e['file'] in o.tests)]
    for e in unused:
        rep.append(f'note: allow-list line {e["line"]} ({e["file"]}) matched nothing this run')
    verdict = (f'pgcheck: {len(o.tests)} files, {tot["runs"]} GPU runs, {tot["fbs"]} fallbacks, '
               f'{tot["unexplained"]} unexplained differences, {tot["crash"]} crashes'
               f' ({tot["allowed"]} allowed lines, {o.elapsed}s)')
    rep.append(verdict)
    text = '\n'.join(rep) + '\n'
    with open(os.path.join(o.outdir, 'report.txt'), 'w') as f:
        f.write(text)
    sys.stdout.write(text)
    sys.exit(1 if tot['unexplained'] or tot['crash'] else 0)


if __name__ == '__main__':
    main()
