"""The docs stay readable and linked (issue 50): every reference page (docs/*.md; the lab notebooks
in docs/lab/ keep history and have no limit) is held to a line limit declared once here, a new page
must declare its own, and every relative link in docs/ and docs/lab/ reaches a file that exists and,
for an #anchor into a markdown file, a heading (GitHub's slug) or an explicit <a id> there."""

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: Reference page -> (line limit, why). A reference page says what is true today; history moves
#: to docs/lab/ (docs/lab/README.md). 300 is the default a newcomer reads in one sitting.
LIMITS = {
    # The index and the pages it lists.
    "metrics.md": (60, "the index of the difficulty pages, nothing else"),
    "skill-model.md": (300, "default"),
    "measurement.md": (300, "default"),
    "estimate.md": (300, "default"),
    "estimate-checks.md": (300, "default"),
    "reports.md": (300, "default"),
    # Issue 50 sets this one: today's figure of each workload with its command; history in the lab.
    "performance.md": (250, "issue 50's limit"),
    "levels.md": (300, "default"),
    "generator.md": (300, "default"),
    "rules.md": (300, "default"),
    "native.md": (300, "default"),
    "distributed.md": (300, "default"),
    "store.md": (300, "default"),
    # Over 300 today, each one interface read as a whole (no history to move out).
    "studio.md": (320, "the studio's three tabs, its HTTP API and its security rules in one page"),
    "sharing.md": (80, "peggle studio --share: tokens, the two roles, what a playtester may do, who played"),
    "environment.md": (350, "the Gymnasium surface: actions, observations, rewards, seeding, procedural levels, infos"),
    "distribution.md": (350, "the wheel: its build, contents, platform tag, two engines and CI with its measured times"),
    "protocol.md": (360, "the serve protocol is one specification: every command, reply, limit and frame"),
    "architecture.md": (370, "every module's role and the module table ArchitectureTableTests reads"),
    "agents.md": (400, "every agent kind and its options; another session is editing it"),
    "baselines.md": (400, "the baselines' splits, five-seed tables from run.py report, and their commands"),
}


def _pages():
    return sorted(p.name for p in DOCS.glob("*.md"))


def test_every_reference_page_declares_a_limit():
    missing = [p for p in _pages() if p not in LIMITS]
    gone = [p for p in LIMITS if not (DOCS / p).exists()]
    assert not missing, f"docs/ pages without a line limit in test_docs.LIMITS: {missing}"
    assert not gone, f"test_docs.LIMITS names pages that are gone: {gone}"


@pytest.mark.parametrize("page", sorted(LIMITS))
def test_reference_page_within_its_limit(page):
    path = DOCS / page
    if not path.exists():
        pytest.skip("gone (the other test says so)")
    lines = len(path.read_text(encoding="utf-8").splitlines())
    limit, why = LIMITS[page]
    assert lines <= limit, f"docs/{page} is {lines} lines, its limit is {limit} ({why}): move history to docs/lab/"


def slug(heading):
    """GitHub's anchor for a heading: inline markup dropped, lower case, every character that is
    not a letter, digit, space, hyphen or underscore removed, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.strip().lower()
    out = []
    for ch in text:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def _strip_code(text, spans=True):
    """The text with fenced blocks blanked (lines kept) and, with `spans`, inline code spans removed."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            lines.append("")
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", "", line) if spans else line)
    return lines


def anchors(path):
    found, counts = set(), {}
    for line in _strip_code(path.read_text(encoding="utf-8"), spans=False):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    text = path.read_text(encoding="utf-8")
    found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return found


def test_slug_follows_github():
    assert slug("The adaptive measurement (`peggle rate`, the default method)") == \
        "the-adaptive-measurement-peggle-rate-the-default-method"
    assert slug("Kill -9 and resume") == "kill--9-and-resume"
    assert slug("Levels past the range's ends (measured)") == "levels-past-the-ranges-ends-measured"
    assert slug("difficulty.csv") == "difficultycsv"
    assert slug('What "every level outside flagged" asks') == "what-every-level-outside-flagged-asks"


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def broken_links(path):
    out = []
    for n, line in enumerate(_strip_code(path.read_text(encoding="utf-8")), 1):
        for m in LINK.finditer(line):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                out.append(f"{path.relative_to(ROOT)}:{n}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                out.append(f"{path.relative_to(ROOT)}:{n}: {target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    return out


def test_links_in_docs_reach_files_and_headings():
    pages = sorted(DOCS.glob("*.md")) + sorted((DOCS / "lab").glob("*.md"))
    assert len(pages) > 20
    broken = [b for p in pages for b in broken_links(p)]
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_link_check_sees_a_broken_link(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n## Some (`code`) part\n")
    (tmp_path / "b.md").write_text(
        "[ok](a.md#some-code-part) [ok](a.md) [bad](a.md#nope) [gone](c.md) `[code](x.md)`\n"
        "```\n[in a block](y.md)\n```\n[web](https://example.com/x.md)\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        broken = broken_links(tmp_path / "b.md")
    finally:
        ROOT = saved
    assert len(broken) == 2 and "#nope" in broken[0] and "c.md" in broken[1], broken
