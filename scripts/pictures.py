#!/usr/bin/env python3
"""Every picture in README.md and docs/, made one way, and checked against the plans it shows.

  pictures.py make  --kbp KBP --view KBP_VIEW --load-bench KBP_VIEW_LOAD_BENCH [--only NAME]
                                                              (scripts/pictures.sh runs this)
  pictures.py check --kbp KBP                                 (ctest: pictures_figures)
  pictures.py self-test --kbp KBP                             (the check catches a stale picture)

`make` plans the inputs into build/pictures/ (a fixed place: the viewer prints a plan's path in its
status bar, so the same path gives the same picture), draws every picture into docs/img/, works out
the figures each picture shows from the plan (kbp stats --cost --json, kbp diff --json, ...), checks
that an SVG does show them (its text) and that the viewer drew the diff the figures count (its
--dump-state), and writes docs/img/pictures.json: for each picture its file, the commands that make
it and those figures, each with the kbp command and JSON pointer it comes from.

`check` reads docs/img/pictures.json, makes the input plans in a temporary folder with today's kbp,
works every figure out again and fails, naming the picture and the figure, when one no longer
matches what the picture shows (then run scripts/pictures.sh). It also fails when a picture that
README.md or docs/*.md shows is not in the manifest, or one in docs/img/ is not, or an SVG no longer
holds a figure's text.

The million-op plan (831 MB) is made by `make` alone (BIG_INPUTS: kbp-view-load-bench lays the seed's
templates over 25,875 layers), never kept in the repository nor made again by `check`: its
pictures show no figure `check` works out (the counts the viewer prints of it, its ops and layers,
are checked by `make` against the load bench's own count).
"""
import argparse
import html
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST = ROOT / 'docs' / 'img' / 'pictures.json'
WORK = 'build/pictures'  # where `make` writes the input plans, relative to the repository
SEED = 'samples/glm-5.3-flash/decode.plan.json'

# The plans the pictures draw, made from the bundled samples. $W is the input folder.
INPUTS = [
    'kbp plan samples/gpt-oss-20b/config.json -o $W/gpt-oss-20b.plan.json -q',
    'kbp plan samples/llama-3.3-70b/config.json --recipe bf16 --target h100 --tp 2 -o $W/llama-3.3-70b.tp2.plan.json -q',
    'kbp stats $W/llama-3.3-70b.tp2.plan.json --cost --sweep context=1k..256k --json -o $W/llama-3.3-70b.tp2.sweep.json',
    'kbp plan samples/llama-3.1-8b/config.json --target h100 --recipe bf16 -o $W/llama-3.1-8b.bf16.plan.json -q',
    'kbp tune samples/llama-3.1-8b/config.json --target h100 --candidates fp8-dynamic,w4a16-int4'
    ' --sensitivity samples/llama-3.1-8b/sensitivity.json --budget sensitivity=6'
    ' -o $W/llama-3.1-8b.tuned.plan.json --frontier $W/llama-3.1-8b.frontier.json',
    'kbp plan samples/sarashina2.2-3b/config.json --ranges samples/sarashina2.2-3b/ranges.json -o $W/sarashina2.2-3b.qcu.plan.json -q',
    'kbp plan samples/glm-5.3-flash/config.json --arm multi_seq --rows 64 -o $W/glm-5.3-flash.multi_seq-r64.plan.json -q',
    'kbp plan samples/qwen3-8b/config.json --recipe bf16 -o $W/qwen3-8b.bf16.plan.json -q',
    'kbp plan samples/qwen3-8b/config.json -o $W/qwen3-8b.fp8.plan.json -q',
]

# Made by `make` only: too big for the check to make again each run.
MILLION = f'$W/million.plan.json'
BIG_INPUTS = [f'kbp-view-load-bench --nodes 1000000 --runs 0 --write {MILLION}']


def fig(what, source, pointer, fmt='{}', count_where=None, state=None, scale=None):
    """A figure a picture shows: `source` (a kbp command printing JSON, or `file PATH` of JSON an
    input command wrote) at `pointer`, times `scale`, printed with `fmt`; with count_where, the
    number of the pointer's array elements whose members equal it.
    `state`: the pointer of the same figure in kbp-view's --dump-state, where the viewer says it."""
    f = {'what': what, 'source': source, 'pointer': pointer, 'format': fmt}
    if count_where is not None:
        f['count_where'] = count_where
    if state is not None:
        f['state'] = state
    if scale is not None:
        f['scale'] = scale
    return f


def render_figures(plan, view_args):
    """What a kbp render of a plan prints in its subtitle: templates, ops, layers, groups, edges."""
    src = f'kbp export json {plan} {view_args} -o -'
    figs = []
    if '--view collapsed' in view_args:
        figs += [fig('templates', src, '/clusters', '{} templates', {'kind': 'template'}),
                 fig('template ops', src, '/nodes', '{} template ops', {'kind': 'op'}),
                 fig('ops in the plan', f'kbp stats {plan} --json', '/totals/nodes', 'for {:,} ops'),
                 fig('layers', f'kbp stats {plan} --json', '/totals/layers', 'in {} layers')]
    else:
        figs += [fig('fused groups (kernel launches and host steps) in the view', src, '/nodes', '{} kernel groups',
                     {'kind': 'group'})]
    figs.append(fig('edges in the view', src, '/edges', '{} edges', {}))
    return figs


def overview_figures(plan):
    """What the viewer's overview panel counts and prices (the roofline at its context, 4096)."""
    cost = f'kbp stats {plan} --cost --json'
    stats = f'kbp stats {plan} --json'
    return [fig('ops', stats, '/totals/nodes', '{:,} ops'),
            fig('edges', stats, '/totals/edges', '{:,} edges'),
            fig('groups', stats, '/totals/groups', '{:,} groups'),
            fig('kernel launches', stats, '/totals/launches', '{:,} kernel launches'),
            fig('host steps', stats, '/totals/host_groups', '{:,} host steps'),
            fig('quantization points', stats, '/totals/quant_points', '{:,} quantization points'),
            fig('re-quantized edges', stats, '/totals/requant_edges', '{:,} re-quantized edges'),
            fig('roofline step time at context 4096', cost, '/step/time_us', '{:.1f} us per step'),
            fig('roofline tokens/s at context 4096', cost, '/step/tokens_per_s', '{:.1f} tokens/s'),
            fig('weight bytes a step reads, MB', cost, '/step/weight_bytes', 'weights {:.2f} MB', scale=1e-6),
            fig('state bytes a step reads at context 4096, MB', cost, '/step/state_bytes', 'state {:.2f} MB', scale=1e-6)]


def diff_figures(a, b):
    src = f'kbp diff {a} {b} --json'
    return [fig('ops added', src, '/nodes/added', '{} added', state='/diff/nodes/added'),
            fig('ops removed', src, '/nodes/removed', '{} removed', state='/diff/nodes/removed'),
            fig('ops changed', src, '/nodes/changed', '{} changed', state='/diff/nodes/changed')]


W = '$W'
VIEW_SIZE = '--size 1400x900'
SWEEP = f'file {W}/llama-3.3-70b.tp2.sweep.json'
PICTURES = [
    {'file': 'docs/img/glm-collapsed.svg',
     'make': [f'kbp render {SEED} --view collapsed --title "GLM-5.3-Flash NVFP4 on GB10, decode plan"'
              ' -o docs/img/glm-collapsed.svg --force'],
     'figures': render_figures(SEED, '--view collapsed')},
    {'file': 'docs/img/glm-layer3-groups.svg',
     'make': [f'kbp render {SEED} --view groups --layers 3 --title "GLM-5.3-Flash NVFP4 on GB10, decode plan"'
              ' -o docs/img/glm-layer3-groups.svg --force'],
     'figures': render_figures(SEED, '--view groups --layers 3')},
    {'file': 'docs/img/gpt-oss-collapsed.svg',
     'make': [f'kbp render {W}/gpt-oss-20b.plan.json --view collapsed'
              ' --title "gpt-oss-20b, MXFP4 experts on H100, decode plan" -o docs/img/gpt-oss-collapsed.svg --force'],
     'figures': render_figures(f'{W}/gpt-oss-20b.plan.json', '--view collapsed')},
    {'file': 'docs/img/sarashina-qcu-layer3-groups.svg',
     'make': [f'kbp render {W}/sarashina2.2-3b.qcu.plan.json --view groups --layers 3'
              ' --title "Sarashina2.2-3B W4A16 on Chimera QC-U, decode plan" -o docs/img/sarashina-qcu-layer3-groups.svg --force'],
     'figures': render_figures(f'{W}/sarashina2.2-3b.qcu.plan.json', '--view groups --layers 3')},
    {'file': 'docs/img/llama-70b-tp2-context-sweep.svg',
     'make': [f'kbp render {W}/llama-3.3-70b.tp2.sweep.json'
              ' --title "Llama-3.3-70B BF16 on 2 x H100 (--tp 2), decode: tokens/s by context"'
              ' -o docs/img/llama-70b-tp2-context-sweep.svg --force'],
     'figures': [fig('tokens/s at context 1k', SWEEP, '/points/0/tokens_per_s', 'context 1k: {:.1f} tokens/s'),
                 fig('tokens/s at context 64k', SWEEP, '/points/6/tokens_per_s', 'context 64k: {:.1f} tokens/s'),
                 fig('tokens/s at context 256k', SWEEP, '/points/8/tokens_per_s', 'context 256k: {:.1f} tokens/s'),
                 fig('the two devices\' memory, GB', SWEEP, '/memory_bytes', 'does not fit {:.1f} GB', scale=1e-9)]},
    {'file': 'docs/img/llama-8b-h100-tune-frontier.svg',
     'make': [f'kbp render {W}/llama-3.1-8b.frontier.json'
              ' --title "Llama-3.1-8B on H100: bf16 base, fp8-dynamic or w4a16-int4 per module"'
              ' -o docs/img/llama-8b-h100-tune-frontier.svg --force'],
     'figures': [fig('Pareto points', f'file {W}/llama-3.1-8b.frontier.json', '/points', '{:,} Pareto points', {}),
                 fig('the uniform base', f'file {W}/llama-3.1-8b.frontier.json', '/base/tokens_s', 'base (uniform): {:.1f} tokens/s'),
                 fig('the choice', f'file {W}/llama-3.1-8b.frontier.json', '/chosen/tokens_s', 'chosen: {:.1f} tokens/s'),
                 fig('bits-only', f'file {W}/llama-3.1-8b.frontier.json', '/bits_only/tokens_s',
                     'bits-only (the same effective bits by score per bit): {:.1f} tokens/s')]},
    {'file': 'docs/img/viewer-folded.png',
     'make': [f'kbp-view {SEED} --panel overview {VIEW_SIZE} --screenshot docs/img/viewer-folded.png'],
     'figures': overview_figures(SEED)},
    {'file': 'docs/img/viewer-expanded-inspector.png',
     'make': [f'kbp-view {SEED} --expand all --select l3.dsa.q_a --zoom 1 {VIEW_SIZE}'
              ' --screenshot docs/img/viewer-expanded-inspector.png'],
     'figures': [fig("the selected op's group", f'file {SEED}', '/nodes/[id=l3.dsa.q_a]/group', 'group g{}'),
                 fig('the roofline time of that group on gb10', f'kbp stats {SEED} --cost --json', '/groups/[group=52]/time_us',
                     '{:.2f} us, memory-bound'),
                 fig('the weight bytes that group reads, MB', f'kbp stats {SEED} --cost --json', '/groups/[group=52]/weight_bytes',
                     'weights {:.2f} MB', scale=1e-6)]},
    {'file': 'docs/img/viewer-seed-x4.png',
     'make': [f'kbp-view {SEED} --select l3.dsa.attend --zoom 0.76 {VIEW_SIZE} --screenshot docs/img/viewer-seed-x4.png'],
     'figures': [fig("the selected op's group", f'file {SEED}', '/nodes/[id=l3.dsa.attend]/group', 'group g{}')]},
    {'file': 'docs/img/viewer-sarashina.png',
     'make': [f'kbp-view {W}/sarashina2.2-3b.qcu.plan.json --panel overview {VIEW_SIZE} --screenshot docs/img/viewer-sarashina.png'],
     'figures': overview_figures(f'{W}/sarashina2.2-3b.qcu.plan.json')},
    {'file': 'docs/img/viewer-million-first-frame.png',
     'make': [f'kbp-view {MILLION} --first-frame {VIEW_SIZE} --screenshot docs/img/viewer-million-first-frame.png'],
     'figures': [], 'million': True},
    {'file': 'docs/img/viewer-million.png',
     'make': [f'kbp-view {MILLION} --panel overview {VIEW_SIZE} --screenshot docs/img/viewer-million.png'],
     'figures': [], 'million': True},
    {'file': 'docs/img/viewer-million-x4.png',
     'make': [f'kbp-view {MILLION} --select l19999.dsa.attend --zoom 0.76 {VIEW_SIZE} --screenshot docs/img/viewer-million-x4.png'],
     'figures': [], 'million': True},
    {'file': 'docs/img/viewer-million-1to1.png',
     'make': [f'kbp-view {MILLION} --select l19999.dsa.q_a --zoom 1 {VIEW_SIZE} --screenshot docs/img/viewer-million-1to1.png'],
     'figures': [], 'million': True},
    {'file': 'docs/img/viewer-diff.png',
     'make': [f'kbp-view {SEED} {W}/glm-5.3-flash.multi_seq-r64.plan.json --side b --select l0.kda.xn_quant'
              f' --zoom 0.9 --panel diff {VIEW_SIZE} --screenshot docs/img/viewer-diff.png'],
     'figures': diff_figures(SEED, f'{W}/glm-5.3-flash.multi_seq-r64.plan.json')},
    {'file': 'docs/img/viewer-side-by-side.png',
     'make': [f'kbp-view {W}/qwen3-8b.bf16.plan.json {W}/qwen3-8b.fp8.plan.json --side both --select l0.attn.q'
              ' --zoom 0.9 --panel diff --size 1600x1000 --screenshot docs/img/viewer-side-by-side.png'],
     'figures': diff_figures(f'{W}/qwen3-8b.bf16.plan.json', f'{W}/qwen3-8b.fp8.plan.json')},
    {'file': 'docs/img/viewer-tuned-vs-bf16.png',
     'make': [f'kbp-view {W}/llama-3.1-8b.bf16.plan.json {W}/llama-3.1-8b.tuned.plan.json --expand 5 --panel diff'
              ' --size 1600x1000 --screenshot docs/img/viewer-tuned-vs-bf16.png'],
     'figures': diff_figures(f'{W}/llama-3.1-8b.bf16.plan.json', f'{W}/llama-3.1-8b.tuned.plan.json')},
]


class Runner:
    """Runs a manifest command: `kbp` and `kbp-view` become the given binaries, $W the input
    folder; kbp-view runs under xvfb-run. Commands run from the repository's root."""

    def __init__(self, kbp, view, work, load_bench=None):
        self.kbp, self.view, self.work, self.load_bench = kbp, view, work, load_bench
        self.cache = {}

    def argv(self, command):
        args = [a.replace('$W', self.work) for a in shlex.split(command)]
        if args[0] == 'kbp':
            return [self.kbp] + args[1:]
        if args[0] == 'kbp-view':
            if not self.view:
                raise SystemExit('pictures: kbp-view is needed (configure with -DKBP_BUILD_VIEWER=ON)')
            return ['xvfb-run', '-a', '-s', '-screen 0 1920x1200x24', self.view] + args[1:]
        if args[0] == 'kbp-view-load-bench':
            if not self.load_bench:
                raise SystemExit('pictures: kbp-view-load-bench is needed (configure with -DKBP_BUILD_BENCH=ON)')
            return [self.load_bench] + args[1:]
        raise SystemExit(f'pictures: a command must start with kbp or kbp-view: {command}')

    def run(self, command, capture=False):
        argv = self.argv(command)
        p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        different = command.startswith('kbp diff ') and p.returncode == 1  # diff(1)'s 1: they differ
        if p.returncode != 0 and not different:
            raise SystemExit(f'pictures: {command}: exit {p.returncode}\n{p.stderr.strip()}')
        return p.stdout

    def json_of(self, source):
        if source not in self.cache:
            if source.startswith('file '):
                path = source[len('file '):].replace('$W', self.work)
                self.cache[source] = json.loads((ROOT / path).read_text())
            else:
                self.cache[source] = json.loads(self.run(source, capture=True))
        return self.cache[source]


def at_pointer(doc, pointer):
    """A JSON pointer, where a step `[key=value]` picks the array element whose member key is value
    (`/nodes/[id=l3.dsa.q_a]/group`), so a figure follows an op by name, not by position."""
    for part in pointer.split('/')[1:]:
        part = part.replace('~1', '/').replace('~0', '~')
        if part.startswith('[') and part.endswith(']') and '=' in part:
            key, value = part[1:-1].split('=', 1)
            found = [e for e in doc if str(e.get(key)) == value]
            if len(found) != 1:
                raise SystemExit(f'pictures: {pointer}: {len(found)} elements with {key} {value}')
            doc = found[0]
        else:
            doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def work_out(runner, f):
    """The text a figure shows today, from the plan."""
    value = at_pointer(runner.json_of(f['source']), f['pointer'])
    if 'count_where' in f:
        value = sum(1 for e in value if all(e.get(k) == v for k, v in f['count_where'].items()))
    if 'scale' in f:
        value = value * f['scale']
    return f['format'].format(value)


def svg_text(path):
    return html.unescape((ROOT / path).read_text(encoding='utf-8'))


def images_shown():
    """Every docs/img file README.md and docs/*.md show or link."""
    import re
    shown = set()
    for page in [ROOT / 'README.md'] + sorted((ROOT / 'docs').glob('*.md')):
        for m in re.finditer(r'\]\(([^)\s]+)\)', page.read_text(encoding='utf-8')):
            target = (page.parent / m.group(1).split('#')[0]).resolve()
            if target.suffix in ('.svg', '.png') and target.is_relative_to(ROOT):
                shown.add(str(target.relative_to(ROOT)))
    return shown


def make(args):
    work = WORK
    (ROOT / work).mkdir(parents=True, exist_ok=True)
    runner = Runner(args.kbp, args.view, work, args.load_bench)
    for command in INPUTS:
        print(f'pictures: {command}', flush=True)
        runner.run(command)
    million_ops = None
    entries = []
    for pic in PICTURES:
        wanted = not args.only or args.only in pic['file']
        if wanted and pic.get('million') and million_ops is None:
            for command in BIG_INPUTS:
                print(f'pictures: {command}', flush=True)
                said = runner.run(command)  # "plan: 25875 layers, 1008603 ops, ..."
                million_ops = int(said.split(' ops,')[0].rsplit(' ', 1)[1])
        state = None
        if wanted:
            for command in pic['make']:
                print(f'pictures: {command}', flush=True)
                if command.startswith('kbp-view'):
                    # The same run says in words what it drew (not recorded: it is no picture).
                    state_file = f'{work}/{pathlib.Path(pic["file"]).stem}.state.json'
                    runner.run(f'{command} --dump-state {state_file}')
                    state = json.loads((ROOT / state_file).read_text())
                    if pic.get('million') and state['files'][0]['nodes'] != million_ops:
                        raise SystemExit(f"pictures: {pic['file']}: the viewer shows {state['files'][0]['nodes']} ops,"
                                         f" the plan has {million_ops}")
                    if '--first-frame' in command and state['files'][0]['lists_read']:
                        raise SystemExit(f"pictures: {pic['file']}: the flat lists were read before the first frame")
                else:
                    runner.run(command)
        figures = []
        for f in pic['figures']:
            shows = work_out(runner, f)
            if wanted and pic['file'].endswith('.svg') and shows not in svg_text(pic['file']):
                raise SystemExit(f"pictures: {pic['file']} does not show '{shows}' ({f['what']})")
            if state is not None and 'state' in f:
                drawn = f['format'].format(at_pointer(state, f['state']))
                if drawn != shows:
                    raise SystemExit(f"pictures: {pic['file']}: the viewer shows '{drawn}', the plan '{shows}' ({f['what']})")
            figures.append(dict(f, shows=shows))
        entry = {'file': pic['file'], 'make': pic['make'], 'figures': figures}
        if pic.get('million'):
            entry['inputs'] = BIG_INPUTS  # made by `make` alone
        entries.append(entry)
    manifest = {
        'about': 'Every picture README.md and docs/ show: the commands that make it (scripts/pictures.sh runs them '
                 'from the repository root after the inputs, with $W the folder of input plans) and the figures it '
                 'shows that come from a plan, each worked out by its source (a kbp command printing JSON, or a '
                 'JSON file an input wrote) at its JSON pointer (a step [key=value] picks the array element whose '
                 'key is value), times its scale, printed with its format (Python str.format). ctest '
                 'pictures_figures works them out again from today\'s plans.',
        'inputs': INPUTS,
        'pictures': entries,
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
    print(f'pictures: {len(entries)} pictures, {sum(len(e["figures"]) for e in entries)} figures; wrote {MANIFEST.relative_to(ROOT)}')


def problems_of(manifest, kbp):
    """What no longer holds of a manifest: pictures missing from it or from docs/img, and figures
    today's plans (made in a temporary folder by `kbp`) no longer give."""
    problems = []
    listed = {p['file'] for p in manifest['pictures']}
    for path in sorted(images_shown() - listed):
        problems.append(f'{path}: shown in the docs but not made by scripts/pictures.sh (docs/img/pictures.json)')
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / 'docs' / 'img').glob('*') if p.suffix in ('.svg', '.png')}
    for path in sorted(on_disk - listed):
        problems.append(f'{path}: in docs/img but not made by scripts/pictures.sh (docs/img/pictures.json)')
    for path in sorted(listed - on_disk):
        problems.append(f'{path}: in docs/img/pictures.json but not in docs/img')
    with tempfile.TemporaryDirectory() as work:
        runner = Runner(kbp, None, work)
        for command in manifest['inputs']:
            runner.run(command)
        for pic in manifest['pictures']:
            for f in pic['figures']:
                today = work_out(runner, f)
                if today != f['shows']:
                    problems.append(f"{pic['file']}: shows '{f['shows']}' ({f['what']}), but today's plan says "
                                    f"'{today}' (from {f['source']} {f['pointer']}): run scripts/pictures.sh")
                if pic['file'].endswith('.svg') and pic['file'] in on_disk and f['shows'] not in svg_text(pic['file']):
                    problems.append(f"{pic['file']}: the manifest says it shows '{f['shows']}', the file does not")
    return problems


def check(args):
    manifest = json.loads(MANIFEST.read_text(encoding='utf-8'))
    problems = problems_of(manifest, args.kbp)
    for p in problems:
        print(p)
    if problems:
        return 1
    figures = sum(len(p['figures']) for p in manifest['pictures'])
    print(f"pictures: {len(manifest['pictures'])} pictures, {figures} figures match today's plans")
    return 0


def self_test(args):
    """The check catches a stale picture: issue 30's viewer-folded.png, which showed 43453.6 us and
    23.0 tokens/s, an SVG whose text lost a figure, and a picture the manifest does not list."""
    manifest = json.loads(MANIFEST.read_text(encoding='utf-8'))
    folded = next(p for p in manifest['pictures'] if p['file'] == 'docs/img/viewer-folded.png')
    for f in folded['figures']:
        if f['pointer'] == '/step/time_us':
            f['shows'] = '43453.6 us per step'
        if f['pointer'] == '/step/tokens_per_s':
            f['shows'] = '23.0 tokens/s'
    svg = next(p for p in manifest['pictures'] if p['file'].endswith('.svg'))
    svg['figures'][0]['shows'] = 'a figure no picture shows'
    dropped = manifest['pictures'].pop()['file']
    found = problems_of(manifest, args.kbp)
    expected = ["docs/img/viewer-folded.png: shows '43453.6 us per step'",
                "docs/img/viewer-folded.png: shows '23.0 tokens/s'",
                f"{svg['file']}: the manifest says it shows 'a figure no picture shows', the file does not",
                f'{dropped}: shown in the docs but not made by scripts/pictures.sh']
    missing = [e for e in expected if not any(p.startswith(e) for p in found)]
    if missing:
        print('pictures self-test: the check missed', *missing, 'it found', *found, sep='\n  ')
        return 1
    print(f'pictures self-test: the check names the {len(expected)} planted problems')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['make', 'check', 'self-test'])
    ap.add_argument('--kbp', required=True)
    ap.add_argument('--view', help='kbp-view (make)')
    ap.add_argument('--load-bench', help='kbp-view-load-bench (make: the million-op plan)')
    ap.add_argument('--only', help='make only the pictures whose file name holds this')
    args = ap.parse_args()
    args.kbp = os.path.abspath(args.kbp)
    if args.view:
        args.view = os.path.abspath(args.view)
    if args.load_bench:
        args.load_bench = os.path.abspath(args.load_bench)
    return {'make': make, 'check': check, 'self-test': self_test}[args.mode](args)


if __name__ == '__main__':
    sys.exit(main())
