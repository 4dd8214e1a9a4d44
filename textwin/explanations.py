"""Why a linear model gave a label: the terms of a text that moved its score most.

A linear model's score of a text for problem ``k`` is ``b_k + sum_j w_kj x_j`` over the
text's terms ``j`` (``x``: its row of the document-term matrix). Each term's
contribution ``w_kj x_j`` is exact, not an estimate: the listed terms, the rest of the
text's terms and the intercept add up to the score. A term is shown as the text writes
it (:meth:`textwin.text.TextVectorizer.occurrences`: "Rates", not the stem "rate").

:func:`explain` serves :meth:`textwin.TextClassifier.explain`,
:meth:`textwin.persistence.TextModel.explain` and ``textwin predict --explain``;
:func:`top_terms` the largest weights of each problem for ``textwin inspect``.
"""
import numpy as np

__all__ = ["explain", "top_terms"]


def explain(vectorizer, coef, intercept, texts, labels, n_terms, terms):
    """For each text, each of its ``labels``' ``n_terms`` strongest terms.

    Parameters
    ----------
    vectorizer : fitted :class:`textwin.text.TextVectorizer`
    coef : array of shape (n_problems, n_terms of the vocabulary)
    intercept : array of shape (n_problems,)
    texts : list of str
    labels : list (one per text) of lists of ``(label, k, sign)``
        Explain ``label`` by problem ``k``'s score; ``sign`` -1 for a label that a
        low score gives (a binary model's first class): its strongest terms are the
        most negative.
    n_terms : int
    terms : sequence of str
        The vocabulary's terms in column order.

    Returns
    -------
    list (one per text) of dict ``{label: {"score", "intercept", "terms", "rest"}}``:
    ``terms`` a list of ``{"words", "term", "contribution", "weight", "value"}``
    (``words``: the text's own writings of the term, distinct, in order), the
    strongest first; ``rest`` the sum of the other terms' contributions, so that
    ``intercept + sum(contributions) + rest == score``.
    """
    X = vectorizer.transform(texts)
    out = []
    for i, text in enumerate(texts):
        row = X[i]
        columns, values = row.indices, row.data
        found = None
        explained = {}
        for label, k, sign in labels[i]:
            contributions = coef[k, columns] * values
            order = np.argsort(-sign * contributions, kind="stable")
            order = [j for j in order[:n_terms] if contributions[j] != 0]
            if found is None and order:
                found = vectorizer.occurrences(text)
            listed = []
            for j in order:
                column = int(columns[j])
                words = list(dict.fromkeys(found.get(column, []))) if found else []
                listed.append({"words": words or [str(terms[column])],
                               "term": str(terms[column]),
                               "contribution": float(contributions[j]),
                               "weight": float(coef[k, column]), "value": float(values[j])})
            total = float(contributions.sum())
            explained[label] = {
                "score": float(intercept[k]) + total, "intercept": float(intercept[k]),
                "terms": listed, "rest": total - sum(t["contribution"] for t in listed)}
        out.append(explained)
    return out


def top_terms(coef, terms, n_terms):
    """The ``n_terms`` terms of largest positive and of largest negative weight of each
    problem: a list (one per row of ``coef``) of ``{"positive": [(term, weight), ...],
    "negative": [...]}``, the largest magnitude first; zero weights are left out."""
    coef = np.asarray(coef)
    out = []
    for w in coef:
        n = min(n_terms, w.size)
        top = np.argpartition(-w, n - 1)[:n] if n else np.array([], dtype=int)
        bottom = np.argpartition(w, n - 1)[:n] if n else np.array([], dtype=int)
        top = top[np.argsort(-w[top], kind="stable")]
        bottom = bottom[np.argsort(w[bottom], kind="stable")]
        out.append({"positive": [(str(terms[j]), float(w[j])) for j in top if w[j] > 0],
                    "negative": [(str(terms[j]), float(w[j])) for j in bottom if w[j] < 0]})
    return out
