"""Small corpora of topic words for the tests of TextClassifier and TextClassifierCV."""
import numpy as np

TOPICS = {
    "grain": "wheat corn harvest grain crop farmers bushel",
    "money": "bank rate interest loans dollar currency reserve",
    "oil": "crude barrel opec refinery oil pipeline energy",
}
COMMON = "the a of report said year market week new".split()


def corpus(n_per_class=30, seed=0, classes=("grain", "money", "oil"), noise=0.4):
    """Texts of topic words and common words; a share ``noise`` of each text's topic
    words come from another topic, so that no setting is perfect."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for label in classes:
        for _ in range(n_per_class):
            words = list(rng.choice(COMMON, 6))
            for _ in range(6):
                topic = label if rng.random() > noise else rng.choice(classes)
                words.append(rng.choice(TOPICS[topic].split()))
            rng.shuffle(words)
            texts.append(" ".join(words))
            labels.append(label)
    return texts, np.array(labels)


def multilabel_corpus(n=120, seed=1):
    rng = np.random.default_rng(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for _ in range(n):
        chosen = [c for c in names if rng.random() < 0.4]
        words = list(rng.choice(COMMON, 5))
        for c in chosen:
            words += list(rng.choice(TOPICS[c].split(), 3))
        words += list(rng.choice(TOPICS[rng.choice(names)].split(), 1))  # a stray word
        texts.append(" ".join(words))
        labels.append(chosen)
    return texts, labels


#: TextClassifier's bias by default: a constant feature, as textwin train fits it
BIAS = dict(fit_intercept=True, intercept_solver="constant_feature")

