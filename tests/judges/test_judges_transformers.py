"""transformers and NLI judges with tiny randomly initialised models built here (no download)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from benchcheck.errors import UsageError  # noqa: E402
from benchcheck.judges.prompts import (  # noqa: E402
    BUILTIN_PROMPTS,
    PromptTemplate,
    select_prompts,
)

TEXTS = [
    {"text_a": "the cat sat on the mat", "text_b": "a cat sat"},
    {"text_a": "the dog ran in the long green park all day", "text_b": "the dog slept"},
    {"text_a": "rain", "text_b": "it rained on the mat all day long"},
]


def _tokenizer(extra_special=("[CLS]", "[SEP]")):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    words = set()
    for t in [*BUILTIN_PROMPTS.values()]:
        words.update((t.system or "").replace("\n", " ").split() + t.user.split())
    for e in TEXTS:
        words.update(e["text_a"].split() + e["text_b"].split())
    specials = ["[PAD]", "[UNK]", "[EOS]", *extra_special]
    vocab = {w: i for i, w in enumerate(specials + sorted(words | {"0", "1", "2"}))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        eos_token="[EOS]",
        cls_token="[CLS]",
        sep_token="[SEP]",
    )
    return fast, vocab


@pytest.fixture(scope="module")
def causal():
    tok, vocab = _tokenizer()
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=vocab["[PAD]"],
    )
    return transformers.LlamaForCausalLM(config), tok


def test_causal_batched_left_padding_matches_single_and_manual(causal):
    from benchcheck.judges.hf_local import TransformersJudge

    model, tok = causal
    judge = TransformersJudge("tiny-llama", model=model, tokenizer=tok, batch_size=3)
    reqs = [BUILTIN_PROMPTS["nli"].render(e) for e in TEXTS]
    batched = judge.score(reqs)
    lengths = {s.n_prompt_tokens for s in batched}
    assert len(lengths) > 1  # different lengths: the batch really was padded
    for req, s in zip(reqs, batched, strict=True):
        assert math.isclose(sum(s.probs), 1.0, abs_tol=1e-12)
        alone = judge.score([req])[0]
        assert s.probs == pytest.approx(alone.probs, abs=1e-5)
        # no chat template on this tokenizer: raw system, blank line, user, newline
        assert judge.prompt_text(req) == req.system + "\n\n" + req.user + "\n"
        # independent computation: one unpadded prompt, logits at the last position
        ids = tok(judge.prompt_text(req), return_tensors="pt")["input_ids"]
        with torch.no_grad():
            z = model(input_ids=ids).logits[0, -1].double()
        pair = z[[tok.convert_tokens_to_ids("0"), tok.convert_tokens_to_ids("1")]]
        expected = torch.softmax(pair, -1).tolist()
        assert s.probs == pytest.approx(expected, abs=1e-5)
    assert judge.identity.weights_hash and len(judge.identity.weights_hash) == 64


def test_causal_refuses_multi_token_verbaliser(causal):
    from benchcheck.judges.hf_local import TransformersJudge

    model, tok = causal
    judge = TransformersJudge("tiny-llama", model=model, tokenizer=tok)
    t = BUILTIN_PROMPTS["nli"].with_verbalisers(["10", "1"])  # digits split: 2 tokens
    with pytest.raises(UsageError, match="is 2 tokens"):
        judge.score([t.render(TEXTS[0])])


@pytest.fixture(scope="module")
def cross_encoder():
    tok, vocab = _tokenizer()
    torch.manual_seed(1)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=128,
        num_labels=3,
        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
        label2id={"contradiction": 0, "entailment": 1, "neutral": 2},
        pad_token_id=0,
    )
    return transformers.BertForSequenceClassification(config).eval(), tok


def test_nli_binary_and_three_way(cross_encoder):
    from benchcheck.judges.nli import NLIJudge

    model, tok = cross_encoder
    judge = NLIJudge("tiny-bert-nli", model=model, tokenizer=tok, batch_size=2)
    assert judge.entailment_index == 1
    binary = judge.score([BUILTIN_PROMPTS["grounding"].render(e) for e in TEXTS])
    three = judge.score([BUILTIN_PROMPTS["nli3"].render(e) for e in TEXTS])
    for e, b, t in zip(TEXTS, binary, three, strict=True):
        enc = tok(e["text_a"], e["text_b"], return_tensors="pt")
        with torch.no_grad():
            p = torch.softmax(model(**enc).logits[0].double(), -1).tolist()
        assert b.probs == pytest.approx((1 - p[1], p[1]), abs=1e-6)
        assert t.labels == ("entailment", "neutral", "contradiction")
        assert t.probs == pytest.approx((p[1], p[2], p[0]), abs=1e-6)
    other = PromptTemplate("other", "{text_a} {text_b}", labels=("yes", "no"))
    with pytest.raises(UsageError, match=r"labels \['yes', 'no'\] are not classes"):
        judge.score([other.render(TEXTS[0])])


def test_nli_judge_runs_through_judge_frame(cross_encoder, tmp_path):
    import polars as pl

    from benchcheck.judges.cache import JudgeCache
    from benchcheck.judges.nli import NLIJudge
    from benchcheck.judges.run import judge_frame

    model, tok = cross_encoder
    frame = pl.DataFrame(
        {
            "id": ["a", "b", "c"],
            "text_a": [e["text_a"] for e in TEXTS],
            "text_b": [e["text_b"] for e in TEXTS],
        }
    )
    judge = NLIJudge("tiny-bert-nli", model=model, tokenizer=tok)
    with JudgeCache(tmp_path / "c.sqlite") as cache:
        out = judge_frame(frame, [judge], select_prompts("nli,nli3"), cache=cache)
        again = judge_frame(frame, [judge], select_prompts("nli,nli3"), cache=cache)
    assert out.height == 6 and again["cached"].all()
    assert {"p_0", "p_1", "p_entailment", "p_neutral", "p_contradiction"} <= set(out.columns)
    assert out.filter(pl.col("prompt") == "nli")["p_entailment"].is_null().all()


def test_nli_judge_loads_a_saved_folder_by_name(cross_encoder, tmp_path, monkeypatch):
    import hashlib

    from benchcheck.judges.nli import NLIJudge

    monkeypatch.setenv("BENCHCHECK_MODELS_DIR", str(tmp_path / "models"))  # hash sidecar
    model, tok = cross_encoder
    folder = tmp_path / "tiny-bert-nli"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    loaded = NLIJudge(str(folder))
    given = NLIJudge("tiny-bert-nli", model=model, tokenizer=tok)
    assert loaded.entailment_index == 1
    reqs = [BUILTIN_PROMPTS["nli3"].render(e) for e in TEXTS]
    for a, b in zip(loaded.score(reqs), given.score(reqs), strict=True):
        assert a.probs == pytest.approx(b.probs, abs=1e-9)
    # the identity of a folder is the sha256 of its weight files, computed here by hand
    weights = sorted(p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin"))
    digest = hashlib.sha256()
    for f in weights:
        digest.update(f"{f.name}:{hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode())
    assert weights and loaded.identity.weights_hash == digest.hexdigest()
