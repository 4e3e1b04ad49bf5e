"""Talking to OpenAI-compatible model servers: generation, the LLM judge, embeddings.

Plain Python like the rest of grading/ (no Django): values in, frozen values out. The public
names are re-exported here; docs/endpoints.md describes them.
"""

from grading.llm.endpoint import Embeddings, EndpointClient, EndpointConfig, SamplingParams
from grading.llm.errors import EndpointError, ErrorKind
from grading.llm.judge import (
    JUDGE_EVALUATOR,
    JUDGE_PROMPT_VERSION,
    JudgeReply,
    JudgeReplyError,
    judge,
    judge_cache_key,
    judge_messages,
    judge_reply_parse,
)
from grading.llm.parallel import ChatOutcome, ChatRequest, complete_many, complete_many_batched
from grading.llm.responses import Completion
from grading.llm.retry import RetryPolicy
from grading.llm.templates import (
    BUILTIN_TEMPLATES,
    MATH_TEMPLATE,
    YESNO_TEMPLATE,
    PromptTemplate,
    TemplateError,
    chat_messages,
    template_named,
)

__all__ = [
    "BUILTIN_TEMPLATES",
    "JUDGE_EVALUATOR",
    "JUDGE_PROMPT_VERSION",
    "MATH_TEMPLATE",
    "YESNO_TEMPLATE",
    "ChatOutcome",
    "ChatRequest",
    "Completion",
    "Embeddings",
    "EndpointClient",
    "EndpointConfig",
    "EndpointError",
    "ErrorKind",
    "JudgeReply",
    "JudgeReplyError",
    "PromptTemplate",
    "RetryPolicy",
    "SamplingParams",
    "TemplateError",
    "chat_messages",
    "complete_many",
    "complete_many_batched",
    "judge",
    "judge_cache_key",
    "judge_messages",
    "judge_reply_parse",
    "template_named",
]
