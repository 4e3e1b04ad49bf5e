"""MSU (Mathematical Solution Understanding): how close a model's solution is to the human one.

Notions (keywords) are read from both solutions, by an LLM through a chat endpoint (the method's
way, ``chat_notions``) or lexically from the text (``lexical``, offline, not the method's way);
each set is embedded (``embedding``) and the cosine of the two set vectors is the score
(``score``). Plain Python: nothing here imports Django. See docs/msu.md.
"""

from grading.msu.chat_notions import (
    PROMPT_VERSION,
    ChatNotionExtractor,
    NotionReplyError,
    notion_messages,
    parse_notion_reply,
)
from grading.msu.embedding import (
    Embedder,
    EmbeddingModelError,
    EmbeddingReplyError,
    EndpointEmbedder,
    HashedNotionEmbedder,
    SentenceTransformerEmbedder,
    StaticModelEmbedder,
    load_local_embedder,
)
from grading.msu.lexical import LexicalExtractor
from grading.msu.notions import NotionExtractor, Notions, normalise_notion, normalise_notions
from grading.msu.score import (
    MsuResult,
    cosine,
    msu_cache_key,
    msu_from_set_vectors,
    msu_score,
    notion_set_vectors,
)

__all__ = [
    "PROMPT_VERSION",
    "ChatNotionExtractor",
    "Embedder",
    "EmbeddingModelError",
    "EmbeddingReplyError",
    "EndpointEmbedder",
    "HashedNotionEmbedder",
    "LexicalExtractor",
    "MsuResult",
    "NotionExtractor",
    "NotionReplyError",
    "Notions",
    "SentenceTransformerEmbedder",
    "StaticModelEmbedder",
    "cosine",
    "load_local_embedder",
    "msu_cache_key",
    "msu_from_set_vectors",
    "msu_score",
    "normalise_notion",
    "normalise_notions",
    "notion_set_vectors",
    "notion_messages",
    "parse_notion_reply",
]
