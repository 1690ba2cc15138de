#!/usr/bin/env python3
"""Builds testdata/logs/corpus from the collection notes (one-off tool, kept for the record).

Input: text files of records
    === <slug>
    url: / date: / tool: / os: / lang: / kind: (fail|ok, default fail) / cause: / evidence: / expect: <ids|->
    ---
    <log excerpt>
Output: dev/<slug>.log, test/<slug>.log and manifest.json.

`split.py drop CORPUS_DIR --batch N --reason TEXT SLUG...` removes named logs of a batch after its
draw without re-drawing and records them with the reason.

Later batches (issue #15, turn 3): `split.py add NOTES_DIR CORPUS_DIR --batch N --seed S` appends
new records to the existing manifest without touching the earlier ones. Records are refused
BEFORE the draw (listed under "refused_before_draw" with the reason) when their URL is already in
the corpus or in the batch, when the knowledge base or docs/ cite their thread (as a URL or as
owner/repo#N), or when their whole text is in, or contains, another log's text. The new batch gets its own held-out third,
drawn the same way (per stratum, sorted by slug, shuffled with random.Random(S), every third from a
seeded offset) into the folder and split "test<N>"; the rest goes to "dev". The seed, the method and
the counts of every batch are recorded under "batches" in the manifest.

The held-out split is chosen BEFORE any matcher change: within each stratum (the project the
thread belongs to), records are sorted by slug, shuffled with random.Random(SEED) and every third
one, starting at a seeded offset, goes to "test". The seed and the resulting split are written to
the manifest, so the split is reproducible and never re-drawn.
"""
import json, os, random, re, sys

SEED = 20261201

STRATA = [
    (r"github\.com/(ggml-org|CodeLinaro)/llama\.cpp/", "llama.cpp"),
    (r"github\.com/ggml-org/whisper\.cpp/", "whisper.cpp"),
    (r"github\.com/ollama/", "ollama"),
    (r"github\.com/(abetlen|JamePeng|boneylizard)/llama-cpp-python", "llama-cpp-python"),
    (r"github\.com/lmstudio-ai/", "lmstudio"),
    (r"github\.com/LostRuins/koboldcpp", "koboldcpp"),
    (r"github\.com/mozilla-ai/llamafile", "llamafile"),
    (r"github\.com/oobabooga/", "text-generation-webui"),
]

def stratum(rec):
    for pat, name in STRATA:
        if re.search(pat, rec["url"]):
            return name
    tool = rec["tool"].lower()
    if "cpp_extension" in tool or "pytorch" in tool or "torch" in tool:
        return "pytorch"
    if "whisper" in tool or "whisper" in rec["url"].lower():
        return "whisper-family"
    if "vulkan" in tool or "vulkan" in rec["url"].lower():
        return "other-vulkan"
    if rec["os"] == "windows":
        return "other-windows"
    return "other"

def parse(path):
    recs, cur, body = [], None, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("=== "):
            if cur: cur["log"] = "".join(body); recs.append(cur)
            cur, body = {"slug": line[4:].strip(), "kind": "fail"}, None
            continue
        if body is not None:
            body.append(line); continue
        if line.rstrip("\n") == "---":
            body = []; continue
        k, _, v = line.partition(":")
        cur[k.strip()] = v.strip()
    if cur: cur["log"] = "".join(body); recs.append(cur)
    return recs

FIELDS = ("slug", "split", "stratum", "url", "date", "tool", "os", "lang", "kind", "cause", "evidence")

def read_notes(src_dir):
    recs = []
    for f in sorted(os.listdir(src_dir)):
        if f.endswith(".txt"):
            recs += parse(os.path.join(src_dir, f))
    slugs = [r["slug"] for r in recs]
    assert len(slugs) == len(set(slugs)), "duplicate slug"
    return recs

def draw(recs, seed, held):
    """The held-out third, per stratum: sorted by slug, shuffled with random.Random(seed), every
    third from a seeded offset. Returns the records by stratum."""
    by = {}
    for r in recs:
        r["stratum"] = stratum(r)
        by.setdefault(r["stratum"], []).append(r)
    rng = random.Random(seed)
    for name in sorted(by):
        group = sorted(by[name], key=lambda r: r["slug"])
        rng.shuffle(group)
        off = rng.randrange(3)
        for i, r in enumerate(group):
            r["split"] = held if i % 3 == off else "dev"
    return by

def write_logs(recs, out_dir, held, extra):
    """Writes each record's log into its split's folder; returns their manifest entries."""
    for split in ("dev", held):
        os.makedirs(os.path.join(out_dir, split), exist_ok=True)
    logs = []
    for r in sorted(recs, key=lambda r: r["slug"]):
        rel = f'{r["split"]}/{r["slug"]}.log'
        with open(os.path.join(out_dir, rel), "w", encoding="utf-8") as fh:
            fh.write(r["log"])
        exp = [] if r["expect"] in ("", "-") else r["expect"].split()
        logs.append({k: r[k] for k in FIELDS} | {"file": rel, "expect": exp} | extra)
    return logs

def load_manifest(out_dir):
    return json.load(open(os.path.join(out_dir, "manifest.json"), encoding="utf-8"))

def save_manifest(out_dir, man):
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(man, fh, ensure_ascii=False, indent=1)
        fh.write("\n")

def recount(man):
    man["counts"] = {}
    for l in man["logs"]:
        man["counts"][l["split"]] = man["counts"].get(l["split"], 0) + 1

def batch_counts(man, b):
    return {s: sum(1 for l in man["logs"] if l.get("batch") == b["batch"] and l["split"] == s) for s in ("dev", b["held_out"])}

def norm(text):
    return " ".join(text.split())

def contained(texts):
    """The slugs whose whole (normalised) text is in another one's; of two equal texts the
    later slug. texts: slug -> text."""
    out = {}
    for a, ta in texts.items():
        for b, tb in texts.items():
            if a != b and ta in tb and (ta != tb or a > b):
                out[a] = b
    return out

def main(src_dir, out_dir):
    """Batch 1: the corpus and its manifest from nothing."""
    recs = read_notes(src_dir)
    by = draw(recs, SEED, "test")
    logs = write_logs(recs, out_dir, "test", {})
    man = {
        "schema": 1,
        "comment": "Public failure and success logs from issue threads; expect = the root cause established in the thread, as knowledge-base IDs ([] = nothing may be named). Split drawn once, before any matcher change, by split.py. A date starting with '~' is approximate (the stored thread excerpt shows no date; month of the issue number's neighbours).",
        "seed": SEED,
        "method": "per stratum: sort by slug, random.Random(seed).shuffle, every 3rd from a seeded offset -> test",
        "counts": {s: sum(1 for l in logs if l["split"] == s) for s in ("dev", "test")},
        "logs": logs,
    }
    save_manifest(out_dir, man)
    print(man["counts"], {k: len(v) for k, v in sorted(by.items())})

def kb_cited_text(out_dir):
    """The text of the knowledge base and the user guides (failures/data, docs/), in which a
    candidate's URL must not appear: a thread the knowledge base was written from is not unseen."""
    root = os.path.normpath(os.path.join(out_dir, "..", "..", ".."))
    parts = []
    for d in ("failures/data", "docs"):
        for dp, _, fs in os.walk(os.path.join(root, d)):
            for f in fs:
                parts.append(open(os.path.join(dp, f), encoding="utf-8", errors="replace").read())
    return "\n".join(parts)

def cited_by(url, text):
    """Whether text cites the thread at url, as a URL or as owner/repo#N (the knowledge base's form)."""
    forms = [re.escape(url)]
    m = re.match(r"https?://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/([0-9]+)", url)
    if m:
        forms.append(re.escape(m.group(1)) + "#" + m.group(2))
    return any(re.search(f + r"(?![0-9A-Za-z_-])", text, re.I) for f in forms)

def add(src_dir, out_dir, batch, seed):
    man = load_manifest(out_dir)
    old = man["logs"]
    old_urls = {l["url"].rstrip("/") for l in old}
    old_texts = [norm(open(os.path.join(out_dir, l["file"]), encoding="utf-8").read()) for l in old]
    old_slugs = {l["slug"] for l in old}
    recs = read_notes(src_dir)
    cited = kb_cited_text(out_dir)
    refused, kept = {}, []
    for r in recs:
        url = r["url"].rstrip("/")
        t = norm(r["log"])
        if cited_by(url, cited):
            refused[r["slug"]] = "URL cited by the knowledge base or the docs"
        elif r["slug"] in old_slugs:
            refused[r["slug"]] = "slug already in the corpus"
        elif url in old_urls:
            refused[r["slug"]] = "URL already in the corpus"
        elif not t or any(t in o or o in t for o in old_texts):
            refused[r["slug"]] = "empty, or text already in the corpus"
        elif any(url == k["url"].rstrip("/") for k in kept):
            refused[r["slug"]] = "URL twice in the batch"
        else:
            kept.append(r)
    for a, b in contained({r["slug"]: norm(r["log"]) for r in kept}).items():
        refused[a] = "text contained in " + b + " of the same batch"
    kept = [r for r in kept if r["slug"] not in refused]
    for slug, why in sorted(refused.items()):
        print("refused before the draw:", slug, "-", why)
    held = "test%d" % batch
    by = draw(kept, seed, held)
    old += write_logs(kept, out_dir, held, {"batch": batch})
    for l in old:
        l.setdefault("batch", 1)
    old.sort(key=lambda l: l["slug"])
    batches = man.get("batches") or [{"batch": 1, "seed": man["seed"], "method": man["method"], "held_out": "test"}]
    batches = [b for b in batches if b["batch"] != batch]
    batches.append({"batch": batch, "seed": seed, "held_out": held,
                    "method": "per stratum: sort by slug, random.Random(seed).shuffle, every 3rd from a seeded offset -> " + held + "; drawn before any matcher change of this batch",
                    "counts": {s: sum(1 for r in kept if r["split"] == s) for s in ("dev", held)},
                    "strata": {k: len(v) for k, v in sorted(by.items())},
                    **({"refused_before_draw": refused} if refused else {})})
    man["batches"] = batches
    man["logs"] = old
    recount(man)
    save_manifest(out_dir, man)
    print(man["counts"], batches[-1]["counts"], batches[-1]["strata"])

def remove(man, out_dir, batch, slugs, record):
    """Removes the named logs of one batch after its draw, without re-drawing; record(b) notes
    them in the batch's entry."""
    for l in man["logs"]:
        if l["slug"] in slugs:
            os.remove(os.path.join(out_dir, l["file"]))
    man["logs"] = [l for l in man["logs"] if l["slug"] not in slugs]
    recount(man)
    for b in man["batches"]:
        if b["batch"] == batch:
            record(b)
            b["counts"] = batch_counts(man, b)
    save_manifest(out_dir, man)
    print(sorted(slugs), man["counts"])

def dedupe(out_dir, batch):
    """Drops the logs of one batch whose whole text is contained in another log of the same
    batch (a one-line message that another thread's longer excerpt also shows): the cross-batch
    rule of add(), applied after the draw without re-drawing. The dropped slugs are recorded.
    (Since batch 5, add() refuses them before the draw.)"""
    man = load_manifest(out_dir)
    logs = [l for l in man["logs"] if l.get("batch", 1) == batch]
    gone = set(contained({l["slug"]: norm(open(os.path.join(out_dir, l["file"]), encoding="utf-8").read()) for l in logs}))
    remove(man, out_dir, batch, gone,
           lambda b: b.__setitem__("dropped_after_draw", sorted(set(b.get("dropped_after_draw", [])) | gone)))

def drop(out_dir, batch, reason, slugs):
    """Drops named logs of one batch after its draw, without re-drawing (for example logs from
    threads the knowledge base already cites as a source). The slugs and the reason are recorded."""
    man = load_manifest(out_dir)
    have = {l["slug"] for l in man["logs"] if l.get("batch", 1) == batch}
    for s in slugs:
        assert s in have, s + ": not a log of batch %d" % batch

    def record(b):
        d = b.setdefault("dropped_after_draw_reasons", {})
        d[reason] = sorted(set(d.get(reason, [])) | set(slugs))
    remove(man, out_dir, batch, set(slugs), record)

if __name__ == "__main__":
    if sys.argv[1] == "drop":
        args = sys.argv[2:]
        i, j = args.index("--batch"), args.index("--reason")
        drop(args[0], int(args[i + 1]), args[j + 1], [a for k, a in enumerate(args[1:], 1) if k not in (i, i + 1, j, j + 1)])
    elif sys.argv[1] == "dedupe":
        dedupe(sys.argv[2], int(sys.argv[sys.argv.index("--batch") + 1]))
    elif sys.argv[1] == "add":
        args = sys.argv[2:]
        batch = int(args[args.index("--batch") + 1])
        seed = int(args[args.index("--seed") + 1])
        add(args[0], args[1], batch, seed)
    else:
        main(sys.argv[1], sys.argv[2])
