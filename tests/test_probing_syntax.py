"""Lesson 19's additions: Dyck depth labels by hand and the Dyck model's states against its own readout and
attention; the determiner–noun pairs by hand, word-level attention by hand, and the determiner heads
against a brute-force loop; MDL by layer with MLP probes."""

from collections import Counter

import pytest
import torch

import xai_tf
from xai_tf.explain.wordlevel import words_of
from xai_tf.probing import by_layer, data, dyck_depth, mdl, pos, pos_heads, probes
from xai_tf.tasks import dyck, toytasks
from xai_tf.transformer import corpus


@pytest.fixture(scope="module")
def dyck_model():
    return toytasks.load_toytasks()[1]["free attention"]


def test_depth_labels_by_hand():
    assert dyck_depth.depth_labels(["(()[])", "[]()()"]).tolist() == [1, 2, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0]


def test_depth_labels_refuse_a_string_outside_dyck():
    with pytest.raises(ValueError, match=r"strings\[1\] = '\(\]'"):
        dyck_depth.depth_labels(["()", "(]"])


def test_dyck_states_are_the_embedding_and_what_the_readout_and_second_layer_read(dyck_model):
    strings = dyck.sample_dyck(5, 24, seed=3)
    x = dyck.encode_dyck(strings)
    H = dyck_depth.dyck_states(dyck_model, strings)  # [3, 5·24, 32]
    assert H.shape == (3, 120, 32)
    with torch.no_grad():
        h0 = dyck_model.W_e(x) + dyck_model.W_p(torch.arange(24))
        logits, A = dyck_model(x)
        torch.testing.assert_close(H[0], h0.flatten(0, 1))
        torch.testing.assert_close(dyck_model.readout(dyck_model.ln[-1](H[2].view(5, 24, -1))), logits)
        q, k, _ = dyck_model.heads(H[1].view(5, 24, -1), 1)  # layer 2's attention read from h_1
        z = (q @ k.transpose(-2, -1) / q.size(-1) ** 0.5).masked_fill(
            ~torch.ones(24, 24).tril().bool(), -torch.inf
        )
        torch.testing.assert_close(z.softmax(-1), A[:, 1])


def test_depth_by_layer_splits_strings_and_counts_the_majority(dyck_model):
    strings = dyck.sample_dyck(8, 24, seed=1)
    table = dyck_depth.depth_by_layer(dyck_model, strings, train_share=0.5, seed=2)
    assert set(table) == {"majority", "linear", "mlp"} and all(len(v) == 3 for v in table.values())
    y = torch.tensor([dyck.parse_dyck(s).depth for s in strings])
    order = torch.randperm(8, generator=torch.Generator().manual_seed(2))
    train, test = y[order[:4]].flatten(), y[order[4:]].flatten()
    commonest = Counter(train.tolist()).most_common(1)[0][0]
    assert table["majority"][0] == pytest.approx(float((test == commonest).double().mean()))


def test_determiner_pairs_by_hand():
    tags = [
        "det",
        "adj",
        "noun",
        "verb",
        "det",
        "noun",
        "noun",
        "det",
        "other",
        "noun",
        "det",
        "adv",
        "adj",
        "noun",
    ]
    assert pos_heads.pos_pairs(tags) == [(2, 0), (5, 4), (13, 10)]
    assert pos_heads.pos_pairs(["noun", "adj", "noun"]) == []


def test_word_attention_by_hand():
    A = torch.tensor([[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]])
    alpha = pos_heads.word_attention(A, [[0], [1, 2]])
    # from word 1 (tokens 1, 2): to word 0 mean(0.5, 0.2), to word 1 mean(0.5, 0.8)
    torch.testing.assert_close(alpha, torch.tensor([[1.0, 0.0], [0.35, 0.65]]))


def test_determiner_heads_against_a_brute_force_loop():
    lm = xai_tf.load_model("shakespeare")
    d = data.play_data(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n_windows=6, T=32)
    y = d.labels["part of speech"]
    got = pos_heads.determiner_heads(lm, d.ids, y)
    hits, offsets = torch.zeros(lm.n_layer, lm.n_head), []
    for w, row in zip(d.ids, y.view(6, 32).tolist(), strict=True):
        groups = words_of(lm, w.tolist())[1]
        tags = [pos.COARSE[row[g[0]]] for g in groups]
        A = lm.attentions(w[None]).float().tolist()
        for q in range(len(groups)):
            if tags[q] != "noun":
                continue
            u = q - 1
            while u >= 0 and tags[u] in ("adj", "adv"):
                u -= 1
            if u < 0 or tags[u] != "det":
                continue
            offsets.append(u - q)
            for layer in range(lm.n_layer):
                for h in range(lm.n_head):
                    alpha = [
                        sum(A[layer][h][i][j] for i in groups[q] for j in g) / len(groups[q]) for g in groups
                    ]
                    hits[layer, h] += alpha.index(max(alpha)) == u
    assert got["pairs"] == len(offsets) > 0
    offset, count = Counter(offsets).most_common(1)[0]
    assert (got["offset"], got["baseline"]) == (offset, pytest.approx(count / len(offsets)))
    torch.testing.assert_close(got["accuracy"], hits / len(offsets))


def test_mdl_with_mlp_probes_compresses_a_separable_label_better_than_noise():
    g = torch.Generator().manual_seed(0)
    H = torch.randn(1, 200, 8, generator=g)
    y = (H[0, :, 0] > 0).long()
    noise = torch.randint(0, 2, (200,), generator=g)
    task, ctrl = by_layer.mdl_by_layer(H, [y, noise], torch.arange(200), kind="mlp")
    # uniform: 1 bit a label; the task (the sign of h[0]) costs far less once the first blocks are sent
    assert min(task) > 1.5 and max(ctrl) < 1.05


def test_mdl_by_layer_mlp_is_the_online_code_of_mlp_probes():
    g = torch.Generator().manual_seed(1)
    H, y = torch.randn(1, 30, 4, generator=g), torch.randint(0, 3, (30,), generator=g)
    order = torch.randperm(30, generator=xai_tf.seeds.generator(0))
    online, uniform = mdl.online_codelength(
        lambda h, t, k: probes.fit_mlp(h, t, k, seed=0, holdout=by_layer.MDL_HOLDOUT),
        H[:, order],
        y[None, order],
        3,
    )
    assert by_layer.mdl_by_layer(H, [y], torch.arange(30), kind="mlp")[0][0] == pytest.approx(
        uniform / float(online[0])
    )
