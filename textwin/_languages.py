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


#: Frequent function words of each language of :data:`LANGUAGES`, lower case: a
#: corpus that uses most of one list is in that language (:func:`textwin.text.
#: detect_language`). Words of one letter are left out; a word in several lists
#: tells those languages from the others, not from each other.
FUNCTION_WORDS = {
    "arabic": "في من على أن إلى التي عن الذي ما لا هذا مع كان هذه قد ذلك أو بين كل هو",
    "danish": "og det at en den til er som på de med af for ikke der var mig sig har jeg",
    "dutch": "de het een en van te dat die in is niet op aan met voor zijn er maar ook wordt",
    "english": "the and of to in is that for it with was on are this be at by not have from",
    "finnish": "ja on ei että se oli hän ovat mutta kun niin myös tai jos joka kuin mitä vain "
               "nyt sen",
    "french": "le la les et des est une un du que dans pour pas qui sur au avec ce il ne",
    "german": "der die und das ist nicht ich zu den mit sich des auf ein eine dem es von auch "
              "sie",
    "hungarian": "az és hogy nem is egy meg de van volt csak már mint ez azt még ha el kell "
                 "amely",
    "italian": "il di che la per un in del non della una sono le si con gli alla è ha",
    "norwegian": "og det er som på en til av for ikke med har de den jeg et var om seg",
    "portuguese": "de que do da em um para é com não uma os no se na por mais as dos ao",
    "romanian": "și în de la cu nu pe că din este un pentru se mai care fost sunt ca al",
    "russian": "и в не на я что он с как а то это по но из к у за для от",
    "spanish": "el la de que en los del se las por un para con no una su al es lo como",
    "swedish": "och att det som en på är av för med till den har de inte om ett han men var",
}


#: The scripts written without spaces between words, by their code point ranges: to a
#: tokenizer of words each sentence is one word, and only character n-grams make their
#: texts learnable (:func:`textwin.text.detect_unspaced_script`).
UNSPACED_SCRIPTS = {
    "Chinese or Japanese": ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF),
                            (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9D),
                            (0x20000, 0x3134F)),  # kana, Han
    "Thai": ((0x0E00, 0x0E7F),),
    "Lao": ((0x0E80, 0x0EFF),),
    "Tibetan": ((0x0F00, 0x0FFF),),
    "Burmese": ((0x1000, 0x109F),),
    "Khmer": ((0x1780, 0x17FF),),
}
