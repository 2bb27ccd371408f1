"""kvscope: prefix-cache observability and what-if lab for llm-d / vLLM clusters."""

__version__ = "0.1.0"
