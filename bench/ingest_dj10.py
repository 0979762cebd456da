"""The anchors of `winnow bench ingest --pipeline dj10 --anchor`: the 10-operator Data-Juicer recipe
bench/ingest/dj10-cjk.yaml written as its users would write it, once as a plain per-row Python
script (--engine python) and once in Polars, lazy (--engine polars), on the same file.

The steps, in the recipe's order (Winnow's operators, as the recipe translates, in brackets):
 1. clean_html_mapper            (strip_html)   known tags out; block tags a blank line, <br>/<li> a line
                                                break, <td> a space; entities decoded
 2. clean_links_mapper           (remove_urls_emails, urls only)  scheme URLs and www. hosts removed
 3. punctuation_normalization    (normalize_punctuation)  the same table of CJK/full-width punctuation
 4. whitespace_normalization     (normalize_whitespace, newlines: keep)  odd spaces -> ' ', runs
                                                collapsed, lines trimmed, blank-line runs -> one
 5. text_length_filter 10..10000 (length_filter)        code points
 6. alphanumeric_filter >= 0.25  (alnum_ratio_filter)   share of isalnum() code points
 7. special_characters <= 0.4    (special_char_ratio_filter, charset data-juicer)  Data-Juicer's set
                                                (ASCII punctuation, digits, whitespace, its list of
                                                symbols) and single-code-point emoji
 8. character_repetition 10-grams <= 0.5  (char_repetition_filter)  Data-Juicer's ratio: the top
                                                floor(sqrt(distinct)) repeated n-grams / all n-grams
 9. word_repetition 5-grams <= 0.5  (word_repetition_filter, wordSplit whitespace)  words split on
                                                space/tab/newline, lower-cased, special characters
                                                stripped from both ends; repeated n-grams / all
10. document_deduplicator lowercase  (exact_dedup, lowercase, no other normalisation)  first kept

Where the anchors depart from Winnow's definitions (docs/performance.md lists it): html.unescape
knows every HTML5 entity (Winnow a common subset, numeric ones all); Polars decodes five entities;
Python's isalnum() leaves combining marks out (Winnow counts them); the Polars link pattern has no
look-behind and leaves the punctuation after a URL to the URL; Python's str.strip()/lower() and
JavaScript's trim()/toLowerCase() differ on a few code points (U+FEFF, U+0130).
Prints one JSON line: rows read, kept, seconds, CPU seconds, writer.

Usage: python3 bench/ingest_dj10.py IN.jsonl OUT_DIR --prompt text [--engine python|polars]
"""

import argparse
import functools
import hashlib
import html
import json
import math
import os
import re
import sys
import time

# Data-Juicer's special characters: ASCII punctuation, digits and whitespace, its list of symbols,
# and emoji (here the single code points of Unicode's Extended_Pictographic, as ranges).
OTHER_SPECIAL = (
    "\u2002\u2003\u2005\u2008\u2009\u200a\u202f\u3000\x81\x82\x83\x84\x85\x91\x92\x93\x95\x96\x97\x98\x99\x9c\x9d"
    "\ufffc’“”–ー一▬…✦\ufffd\u00ad£\u200b•€«»°·═"
    "×士＾˘⇓↓↑←→（）§″′´¿−±∈\ufeff¢ø‚„½¼¾¹²³―⁃，ˌ¸‹›ʺˈʻ¦‐⠀‰‑≤≥‖"
    "◆●■►▼▲▴∆▻¡★☆✱ːº。¯˜¥ɪ≈†上ン：∼⁄・♡✓⊕․．⋅÷１‟；،、¨ाাी्े◦˚"
    "゜ʼ≖¤ッツシ℃√！【】‿∞➤～πه۩☛₨➩☻๑٪♥ıॽ《‘©﴿٬？▷Г♫∟™ª₪®「—❖」﴾》"
)
ASCII_SPECIAL = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~0123456789 \t\n\r\x0b\x0c"
EMOJI_RANGES = [
   (0xA9, 0xA9), (0xAE, 0xAE), (0x203C, 0x203C), (0x2049, 0x2049), (0x2122, 0x2122),
   (0x2139, 0x2139), (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B), (0x2328, 0x2328),
   (0x23CF, 0x23CF), (0x23E9, 0x23F3), (0x23F8, 0x23FA), (0x24C2, 0x24C2), (0x25AA, 0x25AB),
   (0x25B6, 0x25B6), (0x25C0, 0x25C0), (0x25FB, 0x25FE), (0x2600, 0x2604), (0x260E, 0x260E),
   (0x2611, 0x2611), (0x2614, 0x2615), (0x2618, 0x2618), (0x261D, 0x261D), (0x2620, 0x2620),
   (0x2622, 0x2623), (0x2626, 0x2626), (0x262A, 0x262A), (0x262E, 0x262F), (0x2638, 0x263A),
   (0x2640, 0x2640), (0x2642, 0x2642), (0x2648, 0x2653), (0x265F, 0x2660), (0x2663, 0x2663),
   (0x2665, 0x2666), (0x2668, 0x2668), (0x267B, 0x267B), (0x267E, 0x267F), (0x2692, 0x2697),
   (0x2699, 0x2699), (0x269B, 0x269C), (0x26A0, 0x26A1), (0x26A7, 0x26A7), (0x26AA, 0x26AB),
   (0x26B0, 0x26B1), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26C8, 0x26C8), (0x26CE, 0x26CF),
   (0x26D1, 0x26D1), (0x26D3, 0x26D4), (0x26E9, 0x26EA), (0x26F0, 0x26F5), (0x26F7, 0x26FA),
   (0x26FD, 0x26FD), (0x2702, 0x2702), (0x2705, 0x2705), (0x2708, 0x270D), (0x270F, 0x270F),
   (0x2712, 0x2712), (0x2714, 0x2714), (0x2716, 0x2716), (0x271D, 0x271D), (0x2721, 0x2721),
   (0x2728, 0x2728), (0x2733, 0x2734), (0x2744, 0x2744), (0x2747, 0x2747), (0x274C, 0x274C),
   (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2763, 0x2764), (0x2795, 0x2797),
   (0x27A1, 0x27A1), (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2934, 0x2935), (0x2B05, 0x2B07),
   (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x3030, 0x3030), (0x303D, 0x303D),
   (0x3297, 0x3297), (0x3299, 0x3299), (0x1F004, 0x1F004), (0x1F02C, 0x1F02F), (0x1F094, 0x1F09F),
   (0x1F0AF, 0x1F0B0), (0x1F0C0, 0x1F0C0), (0x1F0CF, 0x1F0D0), (0x1F0F6, 0x1F0FF),
   (0x1F170, 0x1F171), (0x1F17E, 0x1F17F), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A),
   (0x1F1AE, 0x1F1E5), (0x1F201, 0x1F20F), (0x1F21A, 0x1F21A), (0x1F22F, 0x1F22F),
   (0x1F232, 0x1F23A), (0x1F23C, 0x1F23F), (0x1F249, 0x1F25F), (0x1F266, 0x1F321),
   (0x1F324, 0x1F393), (0x1F396, 0x1F397), (0x1F399, 0x1F39B), (0x1F39E, 0x1F3F0),
   (0x1F3F3, 0x1F3F5), (0x1F3F7, 0x1F3FA), (0x1F400, 0x1F4FD), (0x1F4FF, 0x1F53D),
   (0x1F549, 0x1F54E), (0x1F550, 0x1F567), (0x1F56F, 0x1F570), (0x1F573, 0x1F57A),
   (0x1F587, 0x1F587), (0x1F58A, 0x1F58D), (0x1F590, 0x1F590), (0x1F595, 0x1F596),
   (0x1F5A4, 0x1F5A5), (0x1F5A8, 0x1F5A8), (0x1F5B1, 0x1F5B2), (0x1F5BC, 0x1F5BC),
   (0x1F5C2, 0x1F5C4), (0x1F5D1, 0x1F5D3), (0x1F5DC, 0x1F5DE), (0x1F5E1, 0x1F5E1),
   (0x1F5E3, 0x1F5E3), (0x1F5E8, 0x1F5E8), (0x1F5EF, 0x1F5EF), (0x1F5F3, 0x1F5F3),
   (0x1F5FA, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CB, 0x1F6D2), (0x1F6D5, 0x1F6E5),
   (0x1F6E9, 0x1F6E9), (0x1F6EB, 0x1F6F0), (0x1F6F3, 0x1F6FF), (0x1F7DA, 0x1F7FF),
   (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F),
   (0x1F8AE, 0x1F8AF), (0x1F8BC, 0x1F8BF), (0x1F8C2, 0x1F8CF), (0x1F8D9, 0x1F8FF),
   (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA58, 0x1FA5F),
   (0x1FA6E, 0x1FAFF), (0x1FC00, 0x1FFFD),
]
SPECIAL = set(ASCII_SPECIAL) | set(OTHER_SPECIAL)
SPECIAL |= {chr(c) for a, b in EMOJI_RANGES for c in range(a, b + 1)}

PUNCTUATION = {"，": ",", "。": ".", "、": ",", "．": ".", "｡": ".", "､": ",", "；": ";", "：": ":", "∶": ":", "？": "?", "！": "!", "…": "...", "‥": "..", "〜": "~", "～": "~", "「": "\"", "」": "\"", "『": "\"", "』": "\"", "“": "\"", "”": "\"", "„": "\"", "‟": "\"", "«": "\"", "»": "\"", "〝": "\"", "〞": "\"", "＂": "\"", "‘": "'", "’": "'", "‚": "'", "‛": "'", "‹": "'", "›": "'", "＇": "'", "´": "'", "′": "'", "″": "\"", "（": "(", "）": ")", "［": "[", "］": "]", "｛": "{", "｝": "}", "【": "[", "】": "]", "〖": "[", "〗": "]", "〔": "[", "〕": "]", "《": "\"", "》": "\"", "〈": "<", "〉": ">", "＜": "<", "＞": ">", "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "－": "-", "─": "-", "━": "-", "│": "|", "┃": "|", "═": "=", "║": "|", "►": ">", "▶": ">", "▸": ">", "→": "->", "⇒": "=>", "◄": "<", "◀": "<", "←": "<-", "⇐": "<=", "•": "-", "●": "-", "▪": "-", "■": "-", "◆": "-", "★": "*", "☆": "*", "＃": "#", "＄": "$", "％": "%", "＆": "&", "＊": "*", "＋": "+", "／": "/", "＼": "\\", "＝": "=", "＠": "@", "＾": "^", "＿": "_", "｜": "|", "　": " "}

BLOCK = set(
    "p div section article header footer main nav aside blockquote pre ul ol dl table thead tbody tfoot "
    "form fieldset figure figcaption h1 h2 h3 h4 h5 h6 hr address details summary".split()
)
LINE = set("br li tr dt dd caption option".split())
CELL = {"td", "th"}
INLINE = set(
    "a abbr area audio b base bdi bdo big body button canvas center cite code col colgroup data datalist "
    "del dfn dialog em embed font frame frameset head html i iframe img input ins kbd label legend link map "
    "mark menu meta meter noscript object optgroup output param picture progress q rp rt ruby s samp script "
    "search select slot small source span strike strong style sub sup svg template textarea time title "
    "track tt u var video wbr math mi mn mo mrow msup msub mfrac".split()
)
KNOWN = BLOCK | LINE | CELL | INLINE
MARKUP = re.compile(r"<[A-Za-z!?/]")
COMMENT = re.compile(r"<!--[\s\S]*?(?:-->|$)")
DECLARATION = re.compile(r"<![A-Za-z][^>]*>|<\?[\s\S]*?\?>")
DROPPED = re.compile(r"<(script|style)\b[^>]*>[\s\S]*?(?:</\1\s*>|$)", re.I)
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s(?:[^<>\"']|\"[^\"]*\"|'[^']*')*)?)/?>")
URL = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Za-z][\w+.-]*://|www\.)[^\s<>\"'`\u3000-\u303f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f]+",
    re.I,
)
ZERO_WIDTH = re.compile("[\u200b\u2060\ufffc]")
STRAY_JOINER = re.compile(r"(?<![^\s\x00-\x7f])[\u200c\u200d]|[\u200c\u200d](?![^\s\x00-\x7f])")
LINE_BREAK = re.compile("\r\n|[\r\x85\u2028\u2029]")
HSPACE = re.compile("[\t\x0b\x0c \x84\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
WORD_SPLIT = re.compile("[ \t\n]")


def tag_repl(m):
    close, name = m.group(1), m.group(2).lower()
    if name not in KNOWN:
        return m.group(0)
    if name in BLOCK:
        return "\n\n"
    if name in LINE:
        return "" if close and name != "br" else "\n"
    return " " if name in CELL else ""


def clean_html(t):
    if not MARKUP.search(t):
        return html.unescape(t)
    t = DECLARATION.sub("", COMMENT.sub("", t))
    t = re.sub(r"[ \t\n\r\f]+", " ", DROPPED.sub(" ", t))
    t = html.unescape(TAG.sub(tag_repl, t))
    t = re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]{2,}", " ", re.sub(r"[ \t]*\n[ \t]*", "\n", t)))
    return t.strip()


def clean_links(t):
    if "://" not in t and "www." not in t.lower():
        return t
    out, cursor = [], 0
    for m in URL.finditer(t):
        url = m.group(0).rstrip(".,;:!?")
        if len(url) < 5:
            continue
        start, end = m.start(), m.start() + len(url)
        keep = start
        while keep > cursor and t[keep - 1] in " \t":
            keep -= 1
        if end < len(t) and t[end] not in " \t.,;:!?)":
            keep = start
        out.append(t[cursor:keep])
        cursor = end
        if keep == 0:
            while cursor < len(t) and t[cursor] in " \t":
                cursor += 1
    out.append(t[cursor:])
    return "".join(out)


def normalize_whitespace(t):
    t = STRAY_JOINER.sub("", ZERO_WIDTH.sub("", t).replace("\x84", " "))
    lines = [line.strip() for line in HSPACE.sub(" ", LINE_BREAK.sub("\n", t)).split("\n")]
    paragraphs, current = [], []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append("\n".join(current))
            current = []
    if current:
        paragraphs.append("\n".join(current))
    return "\n\n".join(paragraphs)


def char_repetition(t, n=10):
    grams = [t[i : i + n] for i in range(len(t) - n + 1)]
    if not grams:
        return 0.0
    counts = {}
    for g in grams:
        counts[g] = counts.get(g, 0) + 1
    freqs = sorted(counts.values(), reverse=True)
    k = min(int(math.sqrt(len(freqs))), sum(1 for f in freqs if f > 1))
    return sum(freqs[:k]) / len(grams)


def strip_special(w):
    a, b = 0, len(w)
    while a < b and w[a] in SPECIAL:
        a += 1
    while b > a and w[b - 1] in SPECIAL:
        b -= 1
    return w[a:b]


def word_repetition(t, n=5):
    words = [strip_special(w.lower()) for w in WORD_SPLIT.split(t) if w]
    words = [w for w in words if w]
    grams = [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    if not grams:
        return 0.0
    counts = {}
    for g in grams:
        counts[g] = counts.get(g, 0) + 1
    return sum(c for c in counts.values() if c > 1) / len(grams)


def recipe(t):
    """The recipe's nine row steps; the cleaned text, or None when a filter drops it."""
    t = normalize_whitespace(clean_links(clean_html(t)).translate(PUNCT_TABLE))
    n = len(t)
    if not 10 <= n <= 10000:
        return None
    if sum(1 for ch in t if ch.isalnum()) / n < 0.25:
        return None
    if sum(1 for ch in t if ch in SPECIAL) / n > 0.4:
        return None
    if char_repetition(t) > 0.5 or word_repetition(t) > 0.5:
        return None
    return t


PUNCT_TABLE = str.maketrans(PUNCTUATION)


def run_python(args):
    import pyarrow as pa
    import pyarrow.parquet as pq

    seen, ids, texts, read = set(), [], [], 0
    with open(args.input, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            read += 1
            try:
                text = json.loads(line).get(args.prompt)
            except ValueError:
                continue
            if not isinstance(text, str):
                continue
            text = recipe(text)
            if text is None:
                continue
            key = hashlib.md5(text.lower().encode()).digest()
            if key in seen:
                continue
            seen.add(key)
            ids.append(hashlib.sha256(text.encode()).hexdigest()[:16])
            texts.append(text)
    pq.write_table(pa.table({"id": ids, "text": texts}), os.path.join(args.out_dir, "kept.parquet"))
    return read, len(texts), "pyarrow parquet"


def hex_class(chars):
    return "".join(f"\\x{{{ord(c):X}}}" for c in sorted(set(chars)))


SPECIAL_CLASS = f"[{hex_class(ASCII_SPECIAL + OTHER_SPECIAL)}\\p{{Extended_Pictographic}}]"


def polars_text(pl, col):
    """Steps 1-4 (clean_html, clean_links, punctuation, whitespace) as Polars expressions."""
    t = pl.col(col).cast(pl.Utf8)
    block = "|".join(sorted(BLOCK, key=len, reverse=True))
    line = "|".join(sorted(LINE - {"br"}, key=len, reverse=True))
    inline = "|".join(sorted(INLINE, key=len, reverse=True))
    html_text = (
        t.str.replace_all(r"<!--[\s\S]*?(?:-->|$)", "")
        .str.replace_all(r"<![A-Za-z][^>]*>|<\?[\s\S]*?\?>", "")
        .str.replace_all(r"(?i)<script\b[^>]*>[\s\S]*?(?:</script\s*>|$)", " ")
        .str.replace_all(r"(?i)<style\b[^>]*>[\s\S]*?(?:</style\s*>|$)", " ")
        .str.replace_all(r"[ \t\n\r\f]+", " ")
        .str.replace_all(f"(?i)</?(?:{block})(?:\\s[^<>]*)?/?>", "\n\n")
        .str.replace_all(f"(?i)<(?:br|{line})(?:\\s[^<>]*)?/?>|</br\\s*>", "\n")
        .str.replace_all(f"(?i)</(?:{line})\\s*>", "")
        .str.replace_all(r"(?i)</?t[dh](?:\s[^<>]*)?/?>", " ")
        .str.replace_all(f"(?i)</?(?:{inline})(?:\\s[^<>]*)?/?>", "")
    )
    entities = ["&lt;", "&gt;", "&quot;", "&#39;", "&amp;"]
    html_text = (
        html_text.str.replace_many(entities, ["<", ">", '"', "'", "&"])
        .str.replace_all(r"[ \t]*\n[ \t]*", "\n")
        .str.replace_all(r"[ \t]{2,}", " ")
        .str.replace_all(r"\n{3,}", "\n\n")
        .str.strip_chars()
    )
    t = pl.when(t.str.contains(r"<[A-Za-z!?/]")).then(html_text).otherwise(
        t.str.replace_many(entities, ["<", ">", '"', "'", "&"])
    )
    url = r"(?i)[ \t]*(?:[A-Za-z][\pL\pN+.-]*://|www\.)[^\s<>\"'`\x{3000}-\x{303f}\x{ff01}\x{ff08}\x{ff09}\x{ff0c}\x{ff1a}\x{ff1b}\x{ff1f}]+"
    t = t.str.replace_all(url, "").str.replace_many(list(PUNCTUATION), list(PUNCTUATION.values()))
    return (
        t.str.replace_all("[\u200b\u2060\ufffc]", "")
        .str.replace_all("\x84", " ", literal=True)
        .str.replace_all(r"(^|[\s\x00-\x7f])[\x{200c}\x{200d}]+", "${1}")
        .str.replace_all(r"[\x{200c}\x{200d}]+($|[\s\x00-\x7f])", "${1}")
        .str.replace_all("\r\n|[\r\x85\u2028\u2029]", "\n")
        .str.replace_all("[\t\x0b\x0c \x84\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]+", " ")
        .str.replace_all(r" ?\n ?", "\n")
        .str.replace_all(r"\n{2,}", "\n\n")
        .str.strip_chars(" \n")
    )


def polars_char_repetition(pl, n=10):
    """Data-Juicer's character n-gram ratio per row, in list expressions: each character hashed,
    each window's hash a sum of its characters' hashes times per-position constants."""
    chars = pl.col("t").str.split("").list.eval(pl.element().hash(1))
    mult = [pl.lit((0x9E3779B97F4A7C15 * (k + 1)) % 2**64, dtype=pl.UInt64) for k in range(n)]
    window = functools.reduce(lambda a, b: a + b, [pl.element().shift(-k) * mult[k] for k in range(n)])
    grams = chars.list.eval(window.drop_nulls())
    counts = grams.list.eval(pl.element().unique_counts().sort(descending=True))
    repeated = counts.list.eval((pl.element() > 1).sum()).list.first().cast(pl.Int64)
    k = pl.min_horizontal(counts.list.len().cast(pl.Float64).sqrt().floor().cast(pl.Int64), repeated)
    total = grams.list.len()
    return pl.when(total > 0).then(counts.list.head(k).list.sum() / total).otherwise(0.0)


def polars_word_repetition(pl, n=5):
    """The word n-gram ratio per row: words split on space/tab/newline, lower-cased, stripped of
    special characters at both ends, empties dropped; n-grams joined by a space."""
    edge = f"^{SPECIAL_CLASS}+|{SPECIAL_CLASS}+$"
    words = (
        pl.col("t")
        .str.to_lowercase()
        .str.replace_all("[\t\n]", " ")
        .str.split(" ")
        .list.eval(pl.element().str.replace_all(edge, "").filter(pl.element().str.replace_all(edge, "") != ""))
    )
    grams = words.list.eval(
        pl.concat_str([pl.element().shift(-k) for k in range(n)], separator=" ").drop_nulls()
    )
    counts = grams.list.eval(pl.element().unique_counts())
    repeated = counts.list.eval(pl.element().filter(pl.element() > 1).sum()).list.first()
    total = grams.list.len()
    return pl.when(total > 0).then(repeated / total).otherwise(0.0)


def run_polars(args):
    import polars as pl

    df = pl.read_ndjson(args.input, infer_schema_length=10000, ignore_errors=True)
    rows = df.height
    lf = df.lazy().select(polars_text(pl, args.prompt).alias("t")).filter(pl.col("t").is_not_null())
    total = pl.col("t").str.len_chars()
    lf = lf.filter(
        total.is_between(10, 10000)
        & (pl.col("t").str.count_matches(r"[\pL\pN]") / total >= 0.25)
        & (pl.col("t").str.count_matches(SPECIAL_CLASS) / total <= 0.4)
    )
    lf = lf.filter(polars_char_repetition(pl) <= 0.5).filter(polars_word_repetition(pl) <= 0.5)
    out = lf.unique(subset=pl.col("t").str.to_lowercase(), keep="first", maintain_order=True)
    kept = out.select(pl.col("t").alias("text")).collect()
    kept.write_parquet(os.path.join(args.out_dir, "kept.parquet"))
    return rows, kept.height, "polars parquet"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("out_dir")
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--id", default=None)
    ap.add_argument("--answer", default=None)
    ap.add_argument("--pipeline", choices=["dj10"], default="dj10")
    ap.add_argument("--engine", choices=["python", "polars"], default="python")
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    rows, kept, writer = (run_polars if args.engine == "polars" else run_python)(args)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"rows": rows, "kept": kept, "seconds": secs, "cpuSeconds": cpu, "writer": writer}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
