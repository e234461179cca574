#!/usr/bin/env python3
"""Every ```swift block of the README and the DocC articles, as Swift the tests compile.

    Tools/snippets.py          write Tests/Docs/Generated/<Article>.swift
    Tools/snippets.py --check  exit 1, naming them, when those files are not what the docs say

One file per article (the README is one), all in the RewindDocsTests target, so the snippets
cost one compile of one target and no link of their own. In a file:

- the article's context (Tests/Docs/Context/<Article>.swift): the names its snippets take
  as given (`appReducer`, `url`, …), private to the file so that articles never collide;
- a block's types and functions at file scope, made private (a `@Suite` or `@Test` among them
  loses the attribute: compiled, never run, and never counted as a skipped test);
- its statements, and the constants among them, in a function of its own, where they see the
  declarations before them; a block that runs nothing keeps its constants at file scope, for the
  blocks after it.

`import MyApp` (the reader's app) is dropped: the context declares what it would give. A block
needing a platform this machine lacks is marked in the article, just before it:
`<!-- snippet: requires UIKit -->` compiles it only where `canImport(UIKit)`. A block that is no
Swift a test target can compile (a package manifest) names the file it is taken from:
`<!-- snippet: as in Tests/Consumer/Package.swift -->` checks that each of its lines is there
(the package line and comments aside), and the file is built in CI. `…` in a block
(a line of its own, or a closure's body: `{ send in … }`) stands for code the reader writes; it
is dropped.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests/Docs/Generated"
CONTEXT = ROOT / "Tests/Docs/Context"

BLOCK = re.compile(r"(?:<!-- snippet: (?:requires (\w+)|as in (\S+)) -->\s*\n)?([ \t]*)```swift\n(.*?)^[ \t]*```", re.S | re.M)

# Blocks that are not Swift a test target can compile (a package manifest), and how they differ
# from the file they are checked against.
DIFFERENCES = []


def articles():
    """(name, [(label, markdown)]): the README, each DocC article, and each module's doc
    comments (one text a comment, labelled with its file)."""
    yield "README", [("README.md", (ROOT / "README.md").read_text())]
    for path in sorted(ROOT.glob("Sources/*/*.docc/*.md")):
        yield path.stem, [(str(path.relative_to(ROOT)), path.read_text())]
    for module in sorted(p for p in (ROOT / "Sources").iterdir() if p.is_dir()):
        comments = [(str(path.relative_to(ROOT)), text)
                    for path in sorted(module.rglob("*.swift")) for text in doc_comments(path)]
        yield module.name + "Symbols", comments


def doc_comments(path):
    """Each run of `///` lines of a Swift file, as the Markdown it is."""
    run = []
    for line in path.read_text().splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("///"):
            run.append(stripped[4:] if stripped.startswith("/// ") else stripped[3:])
        elif run:
            yield "\n".join(run) + "\n"
            run = []


def blocks(text):
    for match in BLOCK.finditer(text):
        requirement, original, indent, body = match.group(1), match.group(2), match.group(3), match.group(4)
        lines = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in body.splitlines()]
        if original:
            compare(lines, original)
            continue
        lines = ["" if line.strip() == "…" else line.replace(" … ", " ") for line in lines]
        yield requirement, lines


def compare(lines, original):
    """A block shown as in another file (`<!-- snippet: as in PATH -->`): each of its lines is
    one of that file's, but for the package line (a URL where the file has a path) and comments."""
    theirs = {line.strip() for line in (ROOT / original).read_text().splitlines()}
    for line in lines:
        mine = line.strip()
        if mine and not mine.startswith("//") and ".package(" not in mine and mine not in theirs:
            DIFFERENCES.append(f"{original} has no line `{mine}`, which the docs show as in it")


TYPE_OR_FUNCTION = re.compile(r"^((?:@\w+(?:\([^)]*\))? *)*)((?:final |private |fileprivate )*(?:struct|enum|class|actor|protocol|extension|func|typealias))\b")


def chunks(lines):
    """The block cut where a line at the left margin starts something new (a comment joins
    what follows it; a closing bracket or an indented line, what precedes it)."""
    out, current, comments = [], [], []
    for line in lines:
        starts = line[:1] not in ("", " ", "\t", "}", ")", "]", ".")
        if starts and line.startswith("//"):
            comments.append(line)
            continue
        if starts:
            if current:
                out.append(current)
            current = comments + [line]
            comments = []
        else:
            current += comments + [line]
            comments = []
    if current or comments:
        out.append(current + comments)
    return out


def kind(chunk):
    """`type` (a type, a function), `let` (a constant needing no `try`/`await`), or `statement`."""
    first = next((line for line in chunk if line and not line.startswith("//")), "")
    if not first:
        return "blank"
    if TYPE_OR_FUNCTION.match(first) or first.startswith("@"):
        return "type"
    if re.match(r"^let\b", first) and not re.search(r"\b(try|await)\b", "\n".join(chunk)):
        return "let"
    return "statement"


def plain(line):
    """A snippet's suite or test, compiled but never run (its fixtures are the reader's): the
    `@Suite`/`@Test` attribute dropped, so the type or method stays and nothing is registered,
    and no skipped test hides among the suite's real ones. `None` when the attribute was the
    whole line."""
    match = re.match(r"^(\s*)@(Suite|Test)\b", line)
    if not match:
        return line
    end, depth, quoted = match.end(), 0, False
    if line[end:end + 1] == "(":
        # The attribute's arguments, to their closing parenthesis (strings may hold parentheses).
        for index in range(end, len(line)):
            char = line[index]
            if char == '"' and line[index - 1] != "\\":
                quoted = not quoted
            elif not quoted and char == "(":
                depth += 1
            elif not quoted and char == ")":
                depth -= 1
                if depth == 0:
                    end = index + 1
                    break
    rest = line[end:].lstrip()
    return match.group(1) + rest if rest else None


def privatise(chunk):
    """The chunk's declaration at the left margin, private to the file (after its attributes);
    its suites and tests plain declarations."""
    out = []
    for line in filter(lambda line: line is not None, map(plain, chunk)):
        match = re.match(r"^((?:@\w+(?:\([^)]*\))? +)*)(struct|enum|class|final class|actor|func|typealias|let|extension)\b", line)
        if match:
            line = match.group(1) + "private " + line[len(match.group(1)):]
        out.append(line)
    return out


def generate(name, texts):
    context_path = CONTEXT / f"{name}.swift"
    context = context_path.read_text().splitlines() if context_path.exists() else []
    imports, body, found = set(), [], 0
    if name.endswith("Symbols"):
        # A doc comment's code is written inside its module.
        imports.add("import " + name.removesuffix("Symbols"))
    # The context's imports go to the top, but for those under an `#if` (`import SwiftUI`
    # where SwiftUI exists), which stay where they are.
    depth, kept = 0, []
    for line in context:
        depth += line.startswith("#if") - line.startswith("#endif")
        if line.startswith("import ") and depth == 0:
            imports.add(line)
        else:
            kept.append(line)
    context = kept
    numbered = ((label, block) for label, text in texts for block in blocks(text))
    for index, (label, (requirement, lines)) in enumerate(numbered):
        found += 1
        # The reader's own app module: the context stands in for it.
        imports.update(line for line in lines if line.startswith("import ") and line != "import MyApp")
        lines = [line for line in lines if not line.startswith("import ")]
        body.append(f"// {label}, block {index + 1}")
        if requirement:
            body.append(f"#if canImport({requirement})")
        parts = [(kind(chunk), chunk) for chunk in chunks(lines)]
        runs = any(k == "statement" for k, _ in parts)
        # Types and functions at file scope; a block's constants too when it runs nothing (a
        # later block may use them); what runs, in a function of its own.
        for k, chunk in parts:
            if k == "type" or (k in ("let", "blank") and not runs):
                body.extend(privatise(chunk))
        if runs:
            local = [line for k, chunk in parts if k != "type" for line in chunk]
            body.append(f"private func snippet{index + 1}() async throws {{")
            body.extend(("    " + line) if line else "" for line in local)
            # What a snippet names and does not use again is the reader's to use.
            for line in local:
                declared = re.match(r"^(?:let|var) (\w+)\b", line)
                if declared:
                    body.append(f"    _ = {declared.group(1)}")
            body.append("}")
        if requirement:
            body.append("#endif")
        body.append("")
    if not found:
        return None
    header = [
        f"// Generated by Tools/snippets.py from {texts[0][0] if len(texts) == 1 else name.removesuffix('Symbols') + '’s doc comments'}: do not edit.",
        "// (The article's context: Tests/Docs/Context/" + name + ".swift.)",
        "",
    ]
    return "\n".join(header + sorted(imports) + [""] + context + ([""] if context else []) + body).rstrip() + "\n"


def main():
    check = "--check" in sys.argv[1:]
    wanted = {}
    for name, texts in articles():
        source = generate(name, texts)
        if source is not None:
            wanted[OUT / f"{name}.swift"] = source
    stale = [p for p, s in wanted.items() if not p.exists() or p.read_text() != s]
    extra = [p for p in OUT.glob("*.swift") if p not in wanted] if OUT.exists() else []
    for difference in DIFFERENCES:
        print(difference, file=sys.stderr)
    if check:
        for p in stale + extra:
            print(f"{p.relative_to(ROOT)} is not what the docs say: run Tools/snippets.py", file=sys.stderr)
        sys.exit(1 if stale or extra or DIFFERENCES else 0)
    OUT.mkdir(parents=True, exist_ok=True)
    for p in stale:
        p.write_text(wanted[p])
    for p in extra:
        p.unlink()
    print(f"{len(wanted)} files, {len(stale)} written, {len(extra)} removed")
    sys.exit(1 if DIFFERENCES else 0)


if __name__ == "__main__":
    main()
