"""The languages whose texts textwin can stem (a leaf: the command line reads it
without importing the vectorizer)."""

#: The values of ``TextVectorizer(language=...)``: English takes Porter's stemmer, the
#: others Snowball's stemmer of the language (NLTK's and PyStemmer's both have them).
LANGUAGES = ("arabic", "danish", "dutch", "english", "finnish", "french", "german",
             "hungarian", "italian", "norwegian", "portuguese", "romanian", "russian",
             "spanish", "swedish")


def check_language(language):
    """Refuse a language without a stemmer in one line that lists those with one."""
    if language not in LANGUAGES:
        raise ValueError(f"language={language!r} has no stemmer here; choose one of "
                         f"{', '.join(LANGUAGES)}, or do not stem (stem=False, "
                         f"--no-stem on the command line)")
    return language
