#!/usr/bin/env python3
"""Structural figures of the workspace's hand-written Rust (issue 41's before/after table).

Run from the workspace root (no build needed), or name another checkout's root, e.g. main
exported with `git archive main | tar -x -C /tmp/main` for a before/after pair:

    python3 benches/scripts/code_metrics.py [--list] [root]

It prints, per crate (the fuzz workspace included), the lines of non-generated Rust code,
`unsafe` blocks and functions over 80 lines; then, for the runtime (`kafka-wire/src`), its
public items and the import cycles between its modules. `--list` also names the long
functions, the public items and the edges of each cycle.

How each figure is counted (text scans, not a compiler; stable Rust has no rustdoc JSON):

- generated code is left out: `messages/src/generated/`, `kafka-wire/src/error_code/table.rs`
  (xtask writes both) and insta snapshots; `target/` and `fuzz/corpus/` are never read.
- lines: every line of the `.rs` files, and "code" lines: not blank, not only a comment.
- unsafe: `unsafe {` blocks, plus `unsafe fn` / `unsafe impl` / `unsafe trait` items.
- long functions: from a line declaring `fn name` to the brace that closes its body (braces
  in strings, chars and comments ignored), more than 80 lines; tests included.
- public items of the runtime: `pub` (not `pub(crate)`/`pub(super)`) fn, struct, enum, trait,
  type, const, static, mod, macro and `pub use` names, outside `#[cfg(test)]` modules,
  leaving out `private.rs` (the crate's `__private`) and any item marked `#[doc(hidden)]`
  (or inside a hidden trait/impl). An item counts where it is reachable, which this
  approximates: declared in a module whose path is public (`pub mod` all the way), or, for a
  private module's item, once, as the `pub use` of `lib.rs` that re-exports it; methods and
  associated items of public types and traits count as items too.
- import cycles: a graph of the runtime's modules (one node per file; `mod.rs` is its
  directory), an edge A -> B when A's code (outside its tests) names `crate::B...`,
  `super::...` (leaving the file: a `super` inside an inline module stays in it) or a name
  `lib.rs` re-exports from B (`crate::Reader` -> reader); strongly connected components of
  more than one module are the cycles. A second count adds a parent module's `use` of its
  own children (`use x::...` in `mod.rs`: a facade's re-exports), under which a facade
  whose children use items it defines is a cycle too.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = next((os.path.abspath(a) for a in sys.argv[1:] if not a.startswith("--")), os.getcwd())
GENERATED = (
    "messages/src/generated/",
    "kafka-wire/src/error_code/table.rs",
)
SKIP_DIRS = {"target", "corpus", "artifacts", "snapshots", ".git", "node_modules"}
RUNTIME = "kafka-wire/src"
LONG = 80


def rust_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(".rs"):
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                if not any(rel.startswith(g) for g in GENERATED):
                    yield rel


def crate_of(rel):
    """The package directory holding `rel`: the nearest ancestor with a Cargo.toml."""
    d = os.path.dirname(rel)
    while d:
        if os.path.exists(os.path.join(ROOT, d, "Cargo.toml")):
            return d
        d = os.path.dirname(d)
    return "."


def strip_code(text):
    """`text` with comments, strings and char literals blanked (newlines kept), so braces and
    keywords are only the code's."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}', '{') or a lifetime ('a): only the former
            # closes within a few characters.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:i + 12])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def long_functions(code):
    """(name, first line, lines) of every fn whose body spans more than LONG lines."""
    found = []
    for m in FN_RE.finditer(code):
        # The body's opening brace: the first `{` after the signature, unless a `;` (a
        # declaration without body) comes first. Generic bounds hold no braces in this code.
        j = m.end()
        depth_paren = 0
        while j < len(code):
            ch = code[j]
            if ch in "([<":
                depth_paren += 1
            elif ch in ")]>" and depth_paren:
                depth_paren -= 1
            elif ch == ";" and depth_paren == 0:
                j = -1
                break
            elif ch == "{" and depth_paren == 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        depth, k = 0, j
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, k) + 1
        if last - first + 1 > LONG:
            found.append((m.group(1), first, last - first + 1))
    return found


def unsafe_count(code):
    return len(re.findall(r"\bunsafe\s*\{", code)) + len(
        re.findall(r"\bunsafe\s+(fn|impl|trait)\b", code)
    )


def test_mod_spans(code):
    """Line spans of `#[cfg(test)]` modules."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        depth, k = 0, m.end() - 1
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        spans.append((m.start(), k))
    return spans


def without_tests(code):
    for s, e in reversed(test_mod_spans(code)):
        code = code[:s] + re.sub(r"[^\n]", " ", code[s:e + 1]) + code[e + 1:]
    return code


# ---- the runtime's modules -------------------------------------------------------------


def module_of(rel):
    """`kafka-wire/src/rules/tagged.rs` -> `rules::tagged`; `rules/mod.rs` -> `rules`;
    `private.rs` -> `__private`; lib.rs -> `crate`."""
    p = os.path.relpath(rel, RUNTIME)[:-3]
    if p == "lib":
        return "crate"
    if p == "private":
        return "__private"
    parts = p.split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    return "::".join(parts)


def runtime_files():
    return [f for f in rust_files() if f.startswith(RUNTIME + "/")]


def root_reexports(lib_code):
    """Names `lib.rs` re-exports with `pub use` -> the module they come from."""
    names = {}
    for m in re.finditer(r"pub\s+use\s+([A-Za-z_][\w:]*?)::\{([^}]*)\}\s*;", lib_code):
        for name in m.group(2).split(","):
            name = name.strip().split(" as ")[-1].strip()
            if name and name != "self":
                names[name] = m.group(1)
    for m in re.finditer(r"pub\s+use\s+([A-Za-z_][\w:]*)::(\w+)\s*;", lib_code):
        names[m.group(2)] = m.group(1)
    return names


def resolve(path, modules):
    """The longest module prefix of a `::` path (module names as in `module_of`)."""
    parts = path.split("::")
    for k in range(len(parts), 0, -1):
        cand = "::".join(parts[:k])
        if cand in modules:
            return cand
    return None


def import_graph(files):
    modules = {module_of(f): f for f in files}
    facade = defaultdict(set)
    lib_code = strip_code(open(os.path.join(ROOT, RUNTIME, "lib.rs")).read())
    reexp = root_reexports(lib_code)
    edges = defaultdict(set)
    for f in files:
        me = module_of(f)
        if me == "crate":
            continue
        code = without_tests(strip_code(open(os.path.join(ROOT, f)).read()))
        targets = set()
        # `crate::a::b`, and `crate::{a::b, c}` groups (one level of braces).
        for m in re.finditer(r"\bcrate::\{([^}]*)\}", code):
            for item in m.group(1).split(","):
                targets.add(item.strip())
        for m in re.finditer(r"\bcrate::((?:\w+::)*\w+)", code):
            targets.add(m.group(1))
        for t in targets:
            if not t:
                continue
            first = t.split("::")[0]
            if first == "__private":
                dest = "__private"
            elif first in reexp:
                dest = resolve(reexp[first].replace("crate::", ""), modules)
            else:
                dest = resolve(t, modules)
            if dest and dest != me and dest != "crate":
                edges[me].add(dest)
        # `use x::...` / `use self::x::...` of a child module `x` (a facade's re-exports):
        # kept apart, see `main`.
        for m in re.finditer(r"\buse\s+(?:self::)?(\w+)::", code):
            child = (me + "::" + m.group(1)) if me != "crate" else m.group(1)
            if child in modules and child != me:
                facade[me].add(child)
        # `super::x`: the parent module (or its child `x`), unless the `super` stays inside
        # an inline module of this file.
        inline = [(a, b) for a, b, _ in block_spans(code, r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*(?=\{)")]
        for m in re.finditer(r"\b((?:super::)+)((?:\w+::)*\w+)", code):
            ups = m.group(1).count("super::")
            depth = sum(1 for a, b in inline if a < m.start() < b)
            if ups <= depth:
                continue
            base = me.split("::")
            base = base[: len(base) - (ups - depth)] if me != "crate" else []
            full = "::".join(base + [m.group(2)])
            dest = resolve(full, modules) or ("::".join(base) or "crate")
            if dest != me and dest != "crate":
                edges[me].add(dest)
    return modules, edges, facade


def sccs(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


# ---- the runtime's public items -------------------------------------------------------

ITEM_RE = re.compile(
    r"^(?P<indent>[ \t]*)pub\s+(?:const\s+fn|async\s+fn|unsafe\s+fn|extern\s+\"C\"\s+fn|fn|struct|enum|trait|type|const|static|mod|macro)\s+(?P<name>\w+)",
    re.M,
)
USE_RE = re.compile(r"^[ \t]*pub\s+use\s+([^;]+);", re.M)
ASSOC_RE = re.compile(
    r"^(?P<indent>[ \t]+)(?:(?:const\s+|async\s+|unsafe\s+)?fn|const|type)\s+(?P<name>\w+)",
    re.M,
)


def hidden_before(raw_lines, line_no):
    """Whether the attributes just above line `line_no` (1-based) include doc(hidden)."""
    k = line_no - 2
    while k >= 0:
        s = raw_lines[k].strip()
        if s.startswith("#[doc(hidden)]"):
            return True
        if s.startswith("#[") or s.startswith("///") or s.startswith("//") or s.endswith(")]") or s.startswith("#![") or s == "":
            if s == "":
                return False
            k -= 1
            continue
        return False
    return False


def block_spans(code, pattern):
    """(start, end, match) of each `pattern` whose item body is the following braces."""
    spans = []
    for m in re.finditer(pattern, code, re.M):
        k = code.find("{", m.end())
        semi = code.find(";", m.end())
        if k < 0 or (0 <= semi < k):
            continue
        depth = 0
        j = k
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        spans.append((m.start(), j, m))
    return spans


def public_items(files):
    lib = strip_code(open(os.path.join(ROOT, RUNTIME, "lib.rs")).read())
    pub_mods = set(re.findall(r"^\s*pub\s+mod\s+(\w+)", lib, re.M))
    reexported = set(root_reexports(lib).keys())
    items = []
    for f in files:
        me = module_of(f)
        if me == "__private":
            continue
        raw = open(os.path.join(ROOT, f)).read()
        raw_lines = raw.split("\n")
        code = without_tests(strip_code(raw))
        # Is this file's module path public all the way? (`rules` is private, so its
        # `pub mod tagged` is reachable only through `__private`.)
        path_public = me == "crate" or me.split("::")[0] in pub_mods
        if path_public and "::" in me:
            parent = me.rsplit("::", 1)[0]
            pf = [g for g in files if module_of(g) == parent]
            if pf:
                pcode = strip_code(open(os.path.join(ROOT, pf[0])).read())
                path_public = re.search(r"^\s*pub\s+mod\s+%s\b" % me.rsplit("::", 1)[1], pcode, re.M) is not None
        # Items inside `impl` / `trait` blocks: associated items of public types.
        hidden_spans = []
        assoc_spans = []
        for s, e, m in block_spans(code, r"^[ \t]*(?:pub\s+)?(?:unsafe\s+)?(impl|trait)\b[^{;]*"):
            line = code.count("\n", 0, s) + 1
            header = code[m.start():m.end()]
            if hidden_before(raw_lines, line):
                hidden_spans.append((s, e))
                continue
            if m.group(1) == "trait":
                if not re.match(r"\s*pub\s", header):
                    continue
                name = re.search(r"trait\s+(\w+)", header).group(1)
                if not (path_public or name in reexported):
                    continue
                assoc_spans.append((s, e, name, True))
            else:
                # `impl X for T` (trait impls add no item) or `impl T`: inherent, its pub items.
                if re.search(r"\bfor\b", header):
                    hidden_spans.append((s, e))
                    continue
                ty = re.search(r"impl\s*(?:<[^>]*>)?\s*([A-Za-z_]\w*)", header)
                ty = ty.group(1) if ty else "?"
                if not (path_public or ty in reexported):
                    hidden_spans.append((s, e))
                    continue
                assoc_spans.append((s, e, ty, False))

        def inside(pos, spans):
            return any(s < pos < e for s, e, *rest in spans)

        for m in ITEM_RE.finditer(code):
            pos = m.start("name")
            if inside(pos, hidden_spans) or inside(pos, assoc_spans):
                continue
            line = code.count("\n", 0, m.start()) + 1
            if hidden_before(raw_lines, line):
                continue
            # An item of a private module is reachable only through a re-export, which is
            # counted once, as the `pub use` of lib.rs (its methods count below).
            if not path_public:
                continue
            items.append((me, m.group("name"), line))
        for m in USE_RE.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            if inside(m.start(), hidden_spans) or hidden_before(raw_lines, line):
                continue
            if not path_public:
                continue
            body = m.group(1)
            names = re.findall(r"(\w+)\s*(?:[,}]|$)", body.split("{")[-1]) if "{" in body else [body.split("::")[-1].strip()]
            for name in names:
                if name not in ("self", "crate"):
                    items.append((me, "use " + name, line))
        for s, e, owner, is_trait in assoc_spans:
            block = code[s:e]
            base = code.count("\n", 0, s)
            for m in ASSOC_RE.finditer(block) if is_trait else re.finditer(
                r"^(?P<indent>[ \t]+)pub\s+(?:(?:const\s+|async\s+|unsafe\s+)?fn|const|type)\s+(?P<name>\w+)",
                block,
                re.M,
            ):
                line = base + block.count("\n", 0, m.start()) + 1
                if hidden_before(raw_lines, line):
                    continue
                # Only the block's own level (not items of nested blocks).
                items.append((me, "%s::%s" % (owner, m.group("name")), line))
    return items


def main():
    listing = "--list" in sys.argv
    per_crate = defaultdict(lambda: [0, 0, 0, 0, []])
    for f in rust_files():
        raw = open(os.path.join(ROOT, f)).read()
        code = strip_code(raw)
        c = per_crate[crate_of(f)]
        lines = raw.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        c[0] += len(lines)
        c[1] += sum(1 for l in code.split("\n") if l.strip())
        c[2] += unsafe_count(code)
        for name, line, n in long_functions(code):
            c[3] += 1
            c[4].append((f, line, name, n))
    print("%-28s %8s %8s %7s %9s" % ("crate", "lines", "code", "unsafe", "fn>80"))
    tot = [0, 0, 0, 0]
    for crate in sorted(per_crate):
        c = per_crate[crate]
        print("%-28s %8d %8d %7d %9d" % (crate, c[0], c[1], c[2], c[3]))
        for i in range(4):
            tot[i] += c[i]
    print("%-28s %8d %8d %7d %9d" % ("total", *tot))
    rt = per_crate["kafka-wire"]
    if listing:
        print("\nfunctions over %d lines:" % LONG)
        for crate in sorted(per_crate):
            for f, line, name, n in per_crate[crate][4]:
                print("  %s:%d %s (%d lines)" % (f, line, name, n))

    files = runtime_files()
    items = public_items(files)
    print("\nruntime (kafka-wire/src): %d lines, %d code lines" % (rt[0], rt[1]))
    print("public items (grep-based, see the script's doc): %d" % len(items))
    root = [i for i in items if i[0] == "crate"]
    print("  of which re-exported at the crate root by lib.rs: %d" % len(root))
    if listing:
        for me, name, line in sorted(items):
            print("    %s: %s" % (me, name))
    priv_file = os.path.join(ROOT, RUNTIME, "private.rs")
    if os.path.exists(priv_file):
        pcode = without_tests(strip_code(open(priv_file).read()))
        n_priv = len(ITEM_RE.findall(pcode))
        print("  __private (hidden, for generated code): %d pub items declared in private.rs" % n_priv)
    inline_always = sum(
        len(re.findall(r"inline\(always\)", strip_code(open(os.path.join(ROOT, f)).read())))
        for f in files
    )
    print("#[inline(always)] in the runtime: %d" % inline_always)

    modules, edges, facade = import_graph(files)
    both = defaultdict(set)
    for g in (edges, facade):
        for a, bs in g.items():
            both[a] |= bs
    for label, graph in (
        ("import cycles (SCCs > 1)", edges),
        ("counting a parent's `use` of its own children (facade re-exports) too", both),
    ):
        cycles = sccs(list(modules), graph)
        print("modules: %d, import edges: %d, %s: %d" % (
            len(modules), sum(len(v) for v in graph.values()), label, len(cycles)))
        for comp in cycles:
            print("  cycle: %s" % ", ".join(comp))
            if listing:
                for a in comp:
                    for b in sorted(graph.get(a, ())):
                        if b in comp:
                            print("    %s -> %s" % (a, b))

if __name__ == "__main__":
    main()
