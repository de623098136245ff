#!/usr/bin/env python3
"""Chat-template cases for Mosaic's Jinja engine (genai/src/chat), with the outputs transformers gives.

Real models' chat templates, as they ship in tokenizer_config.json ("chat_template"), are rendered
over a set of conversations (with and without a system message, multi-turn, Unicode, empty content,
content that looks like Jinja, tools where the template takes them, add_generation_prompt true and
false) by transformers' own render_jinja_template, the function apply_chat_template calls, so each
expectation is exactly apply_chat_template's. A template that refuses a conversation (raise_exception
on role alternation) records the exception's message instead. Beside them, hand-written cases for
each construct of the supported subset (constructs.json, checked with the same jinja2 environment)
and bad input (errors.json: the message Mosaic must give, a substring, with jinja2's own message
kept for reference; jinja2 must refuse the case too).

    /work/main/build-torch-exporters-venv/bin/python tools/models/make_chat_template_cases.py [OUT_DIR]

writes OUT_DIR/<model>.json (default tests/data/chat_templates/) as
{"template": ..., "cases": [{"context": {...}, "expected": "..."} or {"context": ..., "error": "..."}]};
a case may carry its own "template". "context" holds exactly the variables the template is rendered
with (messages, tools, documents, add_generation_prompt, bos_token, eos_token, ...). The files are
committed; the C++ test (tests/genai/chat_template_test.cpp) needs no Python. Needs transformers and
jinja2 (the torch exporters' venv has them). Cases never depend on the date: templates that call
strftime_now get a date_string.
"""
import argparse
import copy
import json
import os
import sys

import jinja2
from transformers.utils.chat_template_utils import _compile_jinja_template, render_jinja_template

# ---------------------------------------------------------------------------------------------
# The templates, as shipped.

LLAMA2 = (
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}"
    "{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
    "{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if loop.index0 == 0 and system_message != false %}"
    "{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}"
    "{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}"
    "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}"
)

LLAMA3 = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)

LLAMA31 = r'''{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- set date_string = "26 Jul 2024" %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- This block extracts the system message, so we can slot it into the right place. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{#- System message + builtin tools #}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{%- if builtin_tools is defined or tools is not none %}
    {{- "Environment: ipython\n" }}
{%- endif %}
{%- if builtin_tools is defined %}
    {{- "Tools: " + builtin_tools | reject('equalto', 'code_interpreter') | join(", ") + "\n\n"}}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{%- if tools is not none and not tools_in_user_message %}
    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message }}
{{- "<|eot_id|>" }}

{#- Custom tools are passed in a user message with some extra guidance #}
{%- if tools_in_user_message and not tools is none %}
    {#- Extract the first user message so we can plug it in here #}
    {%- if messages | length != 0 %}
        {%- set first_user_message = messages[0]['content']|trim %}
        {%- set messages = messages[1:] %}
    {%- else %}
        {{- raise_exception("Cannot put tools in the first user message when there's no first user message!") }}
{%- endif %}
    {{- '<|start_header_id|>user<|end_header_id|>\n\n' -}}
    {{- "Given the following functions, please respond with a JSON for a function call " }}
    {{- "with its proper arguments that best answers the given prompt.\n\n" }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
    {{- first_user_message + "<|eot_id|>"}}
{%- endif %}

{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}
            {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
            {{- "<|python_tag|>" + tool_call.name + ".call(" }}
            {%- for arg_name, arg_val in tool_call.arguments | items %}
                {{- arg_name + '="' + arg_val + '"' }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- endif %}
                {%- endfor %}
            {{- ")" }}
        {%- else  %}
            {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
            {{- '{"name": "' + tool_call.name + '", ' }}
            {{- '"parameters": ' }}
            {{- tool_call.arguments | tojson }}
            {{- "}" }}
        {%- endif %}
        {%- if builtin_tools is defined %}
            {#- This means we're in ipython mode #}
            {{- "<|eom_id|>" }}
        {%- else %}
            {{- "<|eot_id|>" }}
        {%- endif %}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\n\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
'''

LLAMA32 = r'''{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- if strftime_now is defined %}
        {%- set date_string = strftime_now("%d %b %Y") %}
    {%- else %}
        {%- set date_string = "26 Jul 2024" %}
    {%- endif %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- This block extracts the system message, so we can slot it into the right place. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{#- System message #}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{%- if tools is not none %}
    {{- "Environment: ipython\n" }}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{%- if tools is not none and not tools_in_user_message %}
    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message }}
{{- "<|eot_id|>" }}

{#- Custom tools are passed in a user message with some extra guidance #}
{%- if tools_in_user_message and not tools is none %}
    {#- Extract the first user message so we can plug it in here #}
    {%- if messages | length != 0 %}
        {%- set first_user_message = messages[0]['content']|trim %}
        {%- set messages = messages[1:] %}
    {%- else %}
        {{- raise_exception("Cannot put tools in the first user message when there's no first user message!") }}
{%- endif %}
    {{- '<|start_header_id|>user<|end_header_id|>\n\n' -}}
    {{- "Given the following functions, please respond with a JSON for a function call " }}
    {{- "with its proper arguments that best answers the given prompt.\n\n" }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
    {{- first_user_message + "<|eot_id|>"}}
{%- endif %}

{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
        {{- '{"name": "' + tool_call.name + '", ' }}
        {{- '"parameters": ' }}
        {{- tool_call.arguments | tojson }}
        {{- "}" }}
        {{- "<|eot_id|>" }}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\n\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
'''

QWEN2 = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

QWEN25 = r'''{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
'''

QWEN3 = r'''{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\n\n' }}
    {%- endif %}
    {{- "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith('<tool_response>') and message.content.endswith('</tool_response>')) %}
        {%- set ns.multi_step_tool = false %}
        {%- set ns.last_query_index = index %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- if message.content is string %}
        {%- set content = message.content %}
    {%- else %}
        {%- set content = '' %}
    {%- endif %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}
        {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- else %}
            {%- if '</think>' in content %}
                {%- set reasoning_content = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') %}
                {%- set content = content.split('</think>')[-1].lstrip('\n') %}
            {%- endif %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\n<think>\n' + reasoning_content.strip('\n') + '\n</think>\n\n' + content.lstrip('\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\n' + content }}
        {%- endif %}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and content) or (not loop.first) %}
                    {{- '\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\n\n</think>\n\n' }}
    {%- endif %}
{%- endif %}'''

MISTRAL_V01 = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token + ' ' }}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)

MISTRAL_V03 = r'''{%- if messages[0]["role"] == "system" %}
    {%- set system_message = messages[0]["content"] %}
    {%- set loop_messages = messages[1:] %}
{%- else %}
    {%- set loop_messages = messages %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}
{%- set user_messages = loop_messages | selectattr("role", "equalto", "user") | list %}

{#- This block checks for alternating user/assistant messages, skipping tool calling messages #}
{%- set ns = namespace() %}
{%- set ns.index = 0 %}
{%- for message in loop_messages %}
    {%- if not (message.role == "tool" or message.role == "tool_results" or (message.tool_calls is defined and message.tool_calls is not none)) %}
        {%- if (message["role"] == "user") != (ns.index % 2 == 0) %}
            {{- raise_exception("After the optional system message, conversation roles must alternate user/assistant/user/assistant/...") }}
        {%- endif %}
        {%- set ns.index = ns.index + 1 %}
    {%- endif %}
{%- endfor %}

{{- bos_token }}
{%- for message in loop_messages %}
    {%- if message["role"] == "user" %}
        {%- if tools is not none and (message == user_messages[-1]) %}
            {{- "[AVAILABLE_TOOLS] [" }}
            {%- for tool in tools %}
                {%- set tool = tool.function %}
                {{- '{"type": "function", "function": {' }}
                {%- for key, val in tool.items() if key != "return" %}
                    {%- if val is string %}
                        {{- '"' + key + '": "' + val + '"' }}
                    {%- else %}
                        {{- '"' + key + '": ' + val|tojson }}
                    {%- endif %}
                    {%- if not loop.last %}
                        {{- ", " }}
                    {%- endif %}
                {%- endfor %}
                {{- "}}" }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- else %}
                    {{- "]" }}
                {%- endif %}
            {%- endfor %}
            {{- "[/AVAILABLE_TOOLS]" }}
            {%- endif %}
        {%- if loop.last and system_message is defined %}
            {{- "[INST] " + system_message + "\n\n" + message["content"] + "[/INST]" }}
        {%- else %}
            {{- "[INST] " + message["content"] + "[/INST]" }}
        {%- endif %}
    {%- elif message.tool_calls is defined and message.tool_calls is not none %}
        {{- "[TOOL_CALLS] [" }}
        {%- for tool_call in message.tool_calls %}
            {%- set out = tool_call.function|tojson %}
            {{- out[:-1] }}
            {%- if not tool_call.id is defined or tool_call.id|length != 9 %}
                {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
            {%- endif %}
            {{- ', "id": "' + tool_call.id + '"}' }}
            {%- if not loop.last %}
                {{- ", " }}
            {%- else %}
                {{- "]" + eos_token }}
            {%- endif %}
        {%- endfor %}
    {%- elif message["role"] == "assistant" %}
        {{- " " + message["content"]|trim + eos_token}}
    {%- elif message["role"] == "tool_results" or message["role"] == "tool" %}
        {%- if message.content is defined and message.content.content is defined %}
            {%- set content = message.content.content %}
        {%- else %}
            {%- set content = message.content %}
        {%- endif %}
        {{- '[TOOL_RESULTS] {"content": ' + content|string + ", " }}
        {%- if not message.tool_call_id is defined or message.tool_call_id|length != 9 %}
            {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
        {%- endif %}
        {{- '"call_id": "' + message.tool_call_id + '"}[/TOOL_RESULTS]' }}
    {%- else %}
        {{- raise_exception("Only user and assistant roles are supported, with the exception of an initial optional system message!") }}
    {%- endif %}
{%- endfor %}
'''

ZEPHYR = (
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n{% endif %}\n"
    "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}"
)

PHI3 = (
    "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + '<|end|>\n'}}"
    "{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}"
    "{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)

SMOLLM2 = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

GEMMA2 = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}"
)

DEEPSEEK_LLM = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{{ bos_token }}"
    "{% for message in messages %}{% if message['role'] == 'user' %}{{ 'User: ' + message['content'] + '\n\n' }}"
    "{% elif message['role'] == 'assistant' %}{{ 'Assistant: ' + message['content'] + eos_token }}"
    "{% elif message['role'] == 'system' %}{{ message['content'] + '\n\n' }}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)

DEEPSEEK_R1 = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}"
    "{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='') %}"
    "{%- for message in messages %}{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}"
    "{%- endif %}{%- endfor %}{{bos_token}}{{ns.system_prompt}}{%- for message in messages %}"
    "{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}"
    "{%- if message['role'] == 'assistant' and message['content'] is none %}{%- set ns.is_tool = false -%}"
    "{%- for tool in message['tool_calls']%}{%- if not ns.is_first %}"
    "{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}"
    "{%- set ns.is_first = true -%}{%- else %}"
    "{{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}"
    "{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- endfor %}{%- endif %}"
    "{%- if message['role'] == 'assistant' and message['content'] is not none %}{%- if ns.is_tool %}"
    "{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}"
    "{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}"
    "{% set content = content.split('</think>')[-1] %}{% endif %}"
    "{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}"
    "{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}"
    "{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}"
    "{%- set ns.is_output_first = false %}{%- else %}"
    "{{'\\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}"
    "{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}"
    "{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜><think>\\n'}}{% endif %}"
)

FALCON = (
    "{% for message in messages %}{% if not loop.first %}{{ '\n' }}{% endif %}"
    "{% if message['role'] == 'system' %}{{ 'System: ' }}{% elif message['role'] == 'user' %}{{ 'User: ' }}"
    "{% elif message['role'] == 'assistant' %}{{ 'Falcon: ' }}{% endif %}{{ message['content'] }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '\n' + 'Falcon:' }}{% endif %}"
)

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# ---------------------------------------------------------------------------------------------
# Conversations.


def m(role, content, **extra):
    return dict(role=role, content=content, **extra)


BASIC = {
    "single": [m("user", "Hello!")],
    "system": [m("system", "You are a terse assistant."), m("user", "What is 2+2?")],
    "multi_turn": [m("system", "Be kind."), m("user", "Hi"), m("assistant", "Hello! How can I help?"),
                   m("user", "Tell me a joke.")],
    "no_system_multi": [m("user", "One"), m("assistant", "Two"), m("user", "Three"), m("assistant", "Four")],
    "unicode": [m("user", "Héllo wörld — 你好, мир! 🌍 ß ǅ"), m("assistant", "¡Hola! Ça va? 😀"),
                m("user", "日本語で答えてください。")],
    "empty_content": [m("user", ""), m("assistant", ""), m("user", "  ")],
    "jinja_like": [m("user", "{{ x }} {% if true %}y{% endif %} {# c #} {%- raw -%}"),
                   m("assistant", "}} {{ {% %} #}"), m("user", "{{ messages }}")],
    "whitespace": [m("system", "  padded system  \n"), m("user", "\n\n  leading and trailing \t\n"),
                   m("assistant", "  reply with spaces  "), m("user", "line1\nline2\r\nline3")],
    "quotes": [m("user", "He said \"hi\" and 'bye' \\ back\\slash \\n not a newline")],
}
ALTERNATION_ERROR = {
    "two_users": [m("user", "A"), m("user", "B")],
    "assistant_first": [m("assistant", "I speak first"), m("user", "ok")],
}

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location — with Unicode: °C",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 1},
                "threshold": {"type": "number", "default": 0.5},
                "tags": {"type": "array", "items": {"type": "string"}},
                "verbose": {"type": "boolean", "default": False},
            },
            "required": ["location"],
        },
        "return": {"type": "string"},
    },
}
TIME_TOOL = {
    "type": "function",
    "function": {"name": "get_time", "description": "Current time", "parameters": {"type": "object", "properties": {}}},
}
TOOLS = [WEATHER_TOOL, TIME_TOOL]


def tool_call(name, arguments, call_id="abcDEF123"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


TOOL_CONVERSATION = [
    m("system", "You can call tools."),
    m("user", "What's the weather in Paris?"),
    {"role": "assistant", "tool_calls": [tool_call("get_current_weather", {"location": "Paris, France", "unit": "celsius"})]},
    m("tool", "{\"temperature\": 22.5, \"sky\": \"clear\"}", tool_call_id="abcDEF123"),
    m("assistant", "It is 22.5 °C and clear in Paris."),
    m("user", "Thanks!"),
]
TOOL_CONVERSATION_CONTENT = copy.deepcopy(TOOL_CONVERSATION)
TOOL_CONVERSATION_CONTENT[2]["content"] = ""  # templates that read message.content on tool calls
TOOL_CONVERSATION_MAPPING = copy.deepcopy(TOOL_CONVERSATION_CONTENT)
TOOL_CONVERSATION_MAPPING[3]["content"] = {"temperature": 22.5, "sky": "clear"}


# ---------------------------------------------------------------------------------------------


def render(template, messages, tools=None, add_generation_prompt=False, **kwargs):
    """apply_chat_template's rendering: returns (context, expected or None, error or None)."""
    context = {"messages": messages, "tools": tools, "documents": None,
               "add_generation_prompt": add_generation_prompt, **kwargs}
    try:
        rendered, _ = render_jinja_template(conversations=[copy.deepcopy(messages)], tools=tools,
                                            chat_template=template,
                                            add_generation_prompt=add_generation_prompt, **kwargs)
        return context, rendered[0], None
    except jinja2.exceptions.TemplateError as e:
        return context, None, str(e)


def model_cases(template, tokens, conversations, tool_sets=(), extra=None):
    cases = []
    for convs, tools in [(conversations, None)] + list(tool_sets):
        for name, messages in convs.items():
            for agp in (False, True):
                context, expected, error = render(template, messages, tools=tools, add_generation_prompt=agp,
                                                  **tokens, **(extra or {}))
                case = {"name": name + ("+tools" if tools else "") + (" +gen" if agp else ""), "context": context}
                if error is None:
                    case["expected"] = expected
                else:
                    case["error"] = error
                cases.append(case)
    return cases


LLAMA_TOKENS = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
LLAMA2_TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}
QWEN_TOKENS = {"bos_token": None, "eos_token": "<|im_end|>"}


def models():
    basic_alt = {**BASIC, **ALTERNATION_ERROR}
    tool_convs = {"tool_call": TOOL_CONVERSATION_CONTENT, "tool_result_mapping": TOOL_CONVERSATION_MAPPING,
                  "single": BASIC["single"], "system": BASIC["system"]}
    out = {}
    out["llama2_chat"] = (LLAMA2, model_cases(LLAMA2, LLAMA2_TOKENS, basic_alt))
    out["llama3_instruct"] = (LLAMA3, model_cases(LLAMA3, LLAMA_TOKENS, BASIC))
    cases = model_cases(LLAMA31, LLAMA_TOKENS, BASIC, [(tool_convs, TOOLS)])
    cases += model_cases(LLAMA31, LLAMA_TOKENS, {}, [({"tools_in_system": TOOL_CONVERSATION_CONTENT}, TOOLS)],
                         extra={"tools_in_user_message": False, "date_string": "03 Mar 2025"})
    builtin = copy.deepcopy(TOOL_CONVERSATION_CONTENT)
    builtin[2]["tool_calls"] = [tool_call("brave_search", {"query": "weather Paris"})]
    cases += model_cases(LLAMA31, LLAMA_TOKENS, {"builtin_tools": builtin}, [],
                         extra={"builtin_tools": ["brave_search", "wolfram_alpha", "code_interpreter"]})
    two_calls = copy.deepcopy(TOOL_CONVERSATION_CONTENT)
    two_calls[2]["tool_calls"] *= 2
    cases += model_cases(LLAMA31, LLAMA_TOKENS, {}, [({"two_tool_calls": two_calls}, TOOLS)])
    cases += model_cases(LLAMA31, LLAMA_TOKENS, {}, [({"no_user_message": [m("system", "only system")]}, TOOLS)])
    out["llama31_instruct"] = (LLAMA31, cases)
    dated = {"date_string": "26 Jul 2024"}
    cases = model_cases(LLAMA32, LLAMA_TOKENS, BASIC, [(tool_convs, TOOLS)], extra=dated)
    cases += model_cases(LLAMA32, LLAMA_TOKENS, {"tools_in_system": TOOL_CONVERSATION_MAPPING}, [],
                         extra={"tools_in_user_message": False, "date_string": "01 Jan 2026"})
    out["llama32_instruct"] = (LLAMA32, cases)
    out["qwen2_instruct"] = (QWEN2, model_cases(QWEN2, QWEN_TOKENS, BASIC))
    qwen_tools = copy.deepcopy(TOOL_CONVERSATION)
    qwen_tools.insert(4, m("tool", "second result", tool_call_id="abcDEF124"))
    multi_call = copy.deepcopy(TOOL_CONVERSATION_CONTENT)
    multi_call[2]["content"] = "Let me check."
    multi_call[2]["tool_calls"].append(tool_call("get_time", {}))
    out["qwen25_instruct"] = (QWEN25, model_cases(
        QWEN25, QWEN_TOKENS, BASIC, [({"tool_call": qwen_tools, "multi_call": multi_call, "single": BASIC["single"],
                                       "system": BASIC["system"]}, TOOLS)]))
    thinking = [m("user", "Solve 1+1"), m("assistant", "<think>\nadd them\n</think>\n\nIt is 2."),
                m("user", "And 2+2?"), m("assistant", "<think>easy</think>4")]
    reasoning = [m("user", "Q"), m("assistant", "A", reasoning_content="because")]
    q3_tools = copy.deepcopy(multi_call)
    q3_tools[2]["tool_calls"].append(tool_call("get_time", "{\"tz\": \"UTC\"}"))
    q3_tools.append(m("tool", "<tool_response>x</tool_response>"))
    cases = model_cases(QWEN3, QWEN_TOKENS, {**BASIC, "thinking": thinking, "reasoning_content": reasoning},
                        [({"tool_call": q3_tools, "single": BASIC["single"]}, TOOLS)])
    cases += model_cases(QWEN3, QWEN_TOKENS, {"no_thinking": BASIC["single"]}, [], extra={"enable_thinking": False})
    out["qwen3"] = (QWEN3, cases)
    mistral_tokens = {"bos_token": "<s>", "eos_token": "</s>"}
    out["mistral_v01_instruct"] = (MISTRAL_V01, model_cases(
        MISTRAL_V01, mistral_tokens, {**{k: v for k, v in BASIC.items() if k not in ("system", "multi_turn", "whitespace")},
                                      **ALTERNATION_ERROR, "system_refused": BASIC["system"]}))
    mistral_tool_conv = copy.deepcopy(TOOL_CONVERSATION_CONTENT)
    del mistral_tool_conv[2]["content"]
    bad_id = copy.deepcopy(mistral_tool_conv)
    bad_id[2]["tool_calls"][0]["id"] = "short"
    out["mistral_v03_instruct"] = (MISTRAL_V03, model_cases(
        MISTRAL_V03, mistral_tokens, {**BASIC, **ALTERNATION_ERROR},
        [({"tool_call": mistral_tool_conv, "bad_tool_call_id": bad_id, "single": BASIC["single"]}, TOOLS)]))
    zephyr_tokens = {"bos_token": "<s>", "eos_token": "</s>"}
    out["zephyr_7b_beta"] = (ZEPHYR, model_cases(ZEPHYR, zephyr_tokens, BASIC))
    out["tinyllama_chat"] = (ZEPHYR, model_cases(ZEPHYR, zephyr_tokens, {"single": BASIC["single"], "system": BASIC["system"]}))
    out["phi3_mini"] = (PHI3, model_cases(PHI3, {"bos_token": "<s>", "eos_token": "<|endoftext|>"}, BASIC))
    out["smollm2_instruct"] = (SMOLLM2, model_cases(SMOLLM2, {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"}, BASIC))
    out["gemma2_it"] = (GEMMA2, model_cases(GEMMA2, {"bos_token": "<bos>", "eos_token": "<eos>"}, {**BASIC, **ALTERNATION_ERROR}))
    out["deepseek_llm_chat"] = (DEEPSEEK_LLM, model_cases(
        DEEPSEEK_LLM, {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}, BASIC))
    r1_tools = [m("user", "weather?"),
                {"role": "assistant", "content": None, "tool_calls": [
                    tool_call("get_current_weather", "{\"location\": \"Paris\"}"),
                    tool_call("get_time", "{}")]},
                m("tool", "22C"), m("tool", "noon"), m("assistant", "22C at noon"), m("user", "ok")]
    out["deepseek_r1_distill"] = (DEEPSEEK_R1, model_cases(
        DEEPSEEK_R1, {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
        {**BASIC, "thinking": thinking, "tool_calls": r1_tools}))
    out["falcon_instruct"] = (FALCON, model_cases(FALCON, {"bos_token": None, "eos_token": "<|endoftext|>"}, BASIC))
    out["chatml"] = (CHATML, model_cases(CHATML, {"bos_token": None, "eos_token": "<|im_end|>"}, BASIC))
    return out


# ---------------------------------------------------------------------------------------------
# Constructs: (template, context) rendered by the same environment.

CTX = {
    "messages": [m("system", "sys"), m("user", "Hi"), m("assistant", "Hello"), m("user", "Bye")],
    "d": {"b": 2, "a": 1, "items": [1, 2], "nested": {"x": [10, 20, {"y": "deep"}]}},
    "s": "  Hello, World  ",
    "n": 7, "f": 2.5, "neg": -3, "t": True, "nothing": None,
    "xs": [3, 1, 2], "words": ["banana", "Apple", "cherry", "apple"],
    "people": [{"name": "Ann", "age": 31, "admin": True}, {"name": "bob", "age": 25},
               {"name": "Cy", "age": 40, "admin": False}],
    "u": "héllo wörld 🌍",
}

CONSTRUCTS = [
    # text and whitespace control, trim_blocks / lstrip_blocks
    "plain text only",
    "a\n{% if true %}\nb\n{% endif %}\nc",
    "  {% if true %}x{% endif %}  \n  y",
    "a  {%- if true -%}  b  {%- endif -%}  c",
    "a {{- ' b ' -}} c",
    "a\n  {{ 'x' }}\n  {% if true %}\n  y\n  {% endif %}\nz",
    "a\n  {%+ if true %}b{% endif %}\nc",
    "a\n{% if true +%}\nb{% endif %}",
    "x {# comment #} y\n  {# own line #}\nz",
    "a\n{#- strip -#}\nb",
    "{% raw %}{{ not rendered }} {% if %}{% endraw %}",
    "a\n  {% raw %}\n{{ x }}\n  {% endraw %}\nb",
    "trailing newline kept once\n\n",
    "\r\nwindows\r\nlines\r\n{% if true %}\r\nx\r\n{% endif %}\r\n",
    "{% for m in messages %}\n  {{ m.role }}\n{% endfor %}",
    "{%- for m in messages -%}\n  [{{ m.role }}]\n{%- endfor -%}\n",
    "\t \t{% if true %}tabs{% endif %}\n{{ 'v' }} {% if true %}same line{% endif %}\n  text  {# c #}  after",
    "\u3000{% if true %}ideographic space{% endif %}\n\u00a0 {%- if true %} nbsp{% endif %}",
    "a\n\n  {%- if true -%}\n\n  b  \n\n  {%- endif -%}\n\nc",
    "{% for i in range(2) %}\n    {%- if i %}\n        {{- ',' }}\n    {%- endif %}\n    {{- i }}\n{% endfor %}\nend\n",
    "x{% raw -%}\n  keep {{ }}\n  {%- endraw %}y\n{% raw %}a{% endraw +%}\nz",
    "{% if true %}\n\n{% endif %}\n{% if true %}  {% endif %}\n",
    "{{ 'a' }}\n{# only comment #}\n{{ 'b' }}\n  {#- stripped #}   {{ 'c' }}",
    # literals and printing
    "{{ 'single' }} {{ \"double\" }} {{ 'esc\\'aped\\n\\t\\\\' }} {{ '\\u00e9\\x41' }}",
    "{{ 42 }} {{ -7 }} {{ 1_000 }} {{ 3.14 }} {{ 1e3 }} {{ 2.5e-3 }} {{ 1.0 }} {{ 0.1 + 0.2 }}",
    "{{ true }} {{ True }} {{ false }} {{ none }} {{ None }}",
    "{{ [1, 'two', none, true, 2.5] }} {{ {'k': 'v', 'n': 1} }} {{ (1, 2)|list }} {{ (1, 2)|length }} {{ [] }} {{ {} }}",
    "{{ d }} {{ xs }} {{ people[0] }}",
    "{{ \"it's\" }} {{ [\"it's\", 'say \"x\"', 'a\\nb'] }}",
    "{{ undefined_thing }}|{{ d.missing }}|{{ d['missing'] }}|{{ xs[10] }}",
    "{{ 'a' 'b' }}",
    # access
    "{{ messages[1].role }} {{ messages[1]['content'] }} {{ d.nested.x[2].y }} {{ d['nested']['x'][-1]['y'] }}",
    "{{ messages[-1].content }} {{ xs.0 }} {{ d['items'] }} {{ d.items()|map('list')|list }}",
    "{{ s[2:7] }}|{{ xs[1:] }}|{{ xs[::-1] }}|{{ xs[:-1] }}|{{ u[::-1] }}|{{ u[1:4] }}|{{ messages[1:3]|length }}|{{ xs[-2:] }}|{{ s[::2] }}",
    "{{ u[0] }}{{ u[-1] }} {{ u|length }}",
    # arithmetic
    "{{ 7 + 3 }} {{ 7 - 10 }} {{ 7 * 3 }} {{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 }}",
    "{{ f * 2 }} {{ f + 1 }} {{ n / 7 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }} {{ 10 / 4 }} {{ 1e16 }} {{ 1e-5 }} {{ 123456789.0 * 1000 }}",
    "{{ 'ab' + 'cd' }} {{ xs + [4] }} {{ 'ab' * 3 }} {{ [0] * 3 }} {{ 'x' ~ 1 ~ none ~ true ~ undefined_thing }}",
    "{{ -n }} {{ +n }} {{ -f }} {{ 1 + 2 * 3 - 4 / 2 }} {{ (1 + 2) * 3 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}",
    "{{ true + 1 }} {{ 3 * true }}",
    # comparisons and logic
    "{{ 1 == 1.0 }} {{ 1 != 2 }} {{ 'a' < 'b' }} {{ 2 >= 2 }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ [1, 2] == [1, 2] }} {{ d == d }} {{ none == none }}",
    "{{ 'ell' in 'hello' }} {{ 2 in xs }} {{ 'a' in d }} {{ 'z' not in d }} {{ 9 not in xs }} {{ 'x' in undefined_thing }}",
    "{{ true and false }} {{ true or false }} {{ not true }} {{ not n }} {{ 0 or 'fallback' }} {{ 'first' and 'second' }} {{ none or [] or 'last' }}",
    "{{ 'yes' if n > 5 else 'no' }} {{ 'yes' if n > 50 else 'no' }} [{{ 'only' if false }}] {{ 'a' if false else 'b' if true else 'c' }}",
    "{{ not 'x' in ['x'] }} {{ not n == 7 }}",
    # if / elif / else
    "{% if n > 10 %}big{% elif n > 5 %}medium{% else %}small{% endif %}",
    "{% if nothing %}a{% elif undefined_thing %}b{% else %}c{% endif %}",
    "{% if xs %}non-empty{% endif %}{% if [] %}x{% else %}empty{% endif %}{% if '' %}x{% endif %}{% if {} %}x{% endif %}{% if 0.0 %}x{% endif %}",
    # for
    "{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}|{% endfor %}",
    "{% for x in xs %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }};{% endfor %}",
    "{% for x in xs %}{% if loop.previtem is defined %}{{ loop.previtem }}{% else %}-{% endif %}{% endfor %}",
    "{% for x in [] %}x{% else %}empty{% endfor %} {% for x in xs if x > 5 %}x{% else %}none matched{% endfor %}",
    "{% for m in messages if m.role != 'system' %}{{ loop.index }}:{{ m.role }}{{ '/' if not loop.last }}{% endfor %}",
    "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
    "{% for k in d %}{{ k }},{% endfor %} {% for c in 'abc' %}{{ c }}.{% endfor %} {% for c in u %}[{{ c }}]{% endfor %}",
    "{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }} {% endfor %}{% for a, b in [(5, 6)] %}{{ a * b }}{% endfor %}",
    "{% for x in xs %}{% for y in xs %}{{ loop.index }}{% endfor %}/{{ loop.index }} {% endfor %}",
    "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}",
    "{% for x in xs %}{% set y = x * 2 %}{{ y }}{% endfor %}[{{ y }}]",
    "{% set x = 1 %}{% for i in range(2) %}{{ x }}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}",
    "{% for i in range(3) %}{% if i == 1 %}{% set z = 'a' %}{% endif %}[{{ z }}]{% endfor %}",
    "{% for x in xs %}{{ loop.cycle('odd', 'even') }} {% endfor %}",
    "{% for x in undefined_thing %}x{% else %}undefined iterates as empty{% endfor %}",
    "{% for i in range(3) %}{{ i }}{% endfor %} {% for i in range(2, 5) %}{{ i }}{% endfor %} {% for i in range(10, 0, -3) %}{{ i }}{% endfor %} {{ range(3)|list }}",
    "{% for m in messages %}{% if loop.first %}{% set first_role = m.role %}{% endif %}{% endfor %}{{ first_role is defined }}",
    # set, namespace, with
    "{% set a = 'x' %}{% set b, c = 1, 2 %}{{ a }}{{ b }}{{ c }}{% set t2 = 3, 4 %}{{ t2|join(',') }}",
    "{% if true %}{% set leak = 'visible' %}{% endif %}{{ leak }}",
    "{% set ns = namespace(count=0, found=false) %}{% for x in xs %}{% set ns.count = ns.count + x %}{% if x == 1 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.count }} {{ ns.found }}",
    "{% set ns = namespace() %}{% set ns.items = [] %}{% set ns.items = ns.items + ['a'] %}{{ ns.items }} {{ ns.missing is defined }}",
    "{% set block %}inner {{ n }}{% endset %}[{{ block }}]",
    "{% set upper_block | upper | trim %}  shout {{ s }}{% endset %}[{{ upper_block }}]",
    "{% with a = 1, b = n %}{{ a + b }}{% endwith %}{{ a is defined }}",
    "{% set messages = messages[1:] %}{{ messages|length }}",
    "{% set d2 = dict(x=1, y='two') %}{{ d2 }} {{ d2.y }}",
    # macros
    "{% macro greet(name, punct='!') %}Hello {{ name }}{{ punct }}{% endmacro %}{{ greet('Ann') }} {{ greet('Bob', '?') }} {{ greet(punct='.', name='Cy') }} {{ greet() }}",
    "{% macro fact(k) %}{% if k <= 1 %}1{% else %}{{ k * fact(k - 1)|int }}{% endif %}{% endmacro %}{{ fact(5) }}",
    "{% macro show(x) %}[{{ x }}|{{ outer }}]{% endmacro %}{% set outer = 'late' %}{{ show(1) }}",
    "{% macro m() %}{% set local = 1 %}{{ local }}{% endmacro %}{{ m() }}{{ local is defined }}",
    "{% macro render_tool(t) -%}\n  {{ t.name }}: {{ t.args | join(', ') }}\n{%- endmacro %}\n{% for t in [{'name': 'f', 'args': ['a', 'b']}] %}\n{{ render_tool(t) }}\n{% endfor %}",
    # tests
    "{{ n is defined }} {{ zz is defined }} {{ zz is undefined }} {{ nothing is none }} {{ n is not none }} {{ s is string }} {{ n is string }}",
    "{{ n is number }} {{ f is number }} {{ t is number }} {{ s is number }} {{ n is integer }} {{ f is integer }} {{ t is integer }} {{ f is float }} {{ n is float }}",
    "{{ t is boolean }} {{ n is boolean }} {{ t is true }} {{ 1 is true }} {{ false is false }} {{ 0 is false }}",
    "{{ d is mapping }} {{ xs is mapping }} {{ xs is iterable }} {{ s is iterable }} {{ d is iterable }} {{ n is iterable }} {{ xs is sequence }} {{ s is sequence }} {{ n is sequence }}",
    "{{ n is odd }} {{ n is even }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 10 is divisibleby(3) }} {{ n is not divisibleby 2 }}",
    "{{ n is eq 7 }} {{ n is equalto 7 }} {{ n is ne 8 }} {{ n is lt 10 }} {{ n is gt 10 }} {{ n is le 7 }} {{ n is ge 8 }} {{ 2 is in xs }}",
    "{{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'aBc' is lower }} {{ range is callable }} {{ n is callable }} {{ none is sameas none }}",
    # filters
    "[{{ s|trim }}] [{{ s|upper }}] [{{ s|lower }}] [{{ 'hello wORLD-foo (bar)'|title }}] [{{ 'hELLO world'|capitalize }}] [{{ 'xxhixx'|trim('x') }}]",
    "{{ xs|length }} {{ s|length }} {{ d|length }} {{ xs|count }} {{ u|length }} {{ undefined_thing|length }}",
    "{{ xs|first }} {{ xs|last }} {{ 'abc'|first }} {{ 'abc'|last }} {{ d|first }}",
    "{{ xs|join(', ') }} {{ words|join }} {{ people|join('/', attribute='name') }} {{ [1, none, true]|join('-') }}",
    "{{ 'a-b-c'|replace('-', '+') }} {{ 'aaa'|replace('a', 'b', 2) }} {{ 'ab'|replace('', '.') }}",
    "{{ undefined_thing|default('dflt') }} {{ n|default(0) }} {{ ''|default('empty', true) }} {{ ''|default('kept') }} {{ none|d('x') }} {{ none|d('x', boolean=true) }}",
    "{{ d|tojson }} {{ xs|tojson }} {{ 'é \"q\" \\n <>&'|tojson }} {{ none|tojson }} {{ 2.5|tojson }} {{ 1.0|tojson }} {{ true|tojson }}",
    "{{ people|tojson(indent=2) }}",
    "{{ {'a': [], 'b': {}, 'c': [1, {'d': none}]}|tojson(indent=4) }}",
    "{{ n|string }}{{ xs|string }} {{ '42'|int + 1 }} {{ '3.9'|int }} {{ 'x'|int }} {{ 'x'|int(5) }} {{ 3.99|int }} {{ '2.5'|float }} {{ 'x'|float }} {{ 3|float }} {{ true|int }}",
    "{{ 'abc'|list }} {{ d|list }} {{ d|items|map('join', '=')|list }} {{ undefined_thing|items|list }}",
    "{{ people|map(attribute='name')|list }} {{ words|map('upper')|list }} {{ people|map(attribute='admin', default='n/a')|list }}",
    "{{ xs|select('odd')|list }} {{ xs|reject('odd')|list }} {{ [0, 1, '', 'a', none]|select|list }} {{ xs|select('greaterthan', 1)|list }}",
    "{{ people|selectattr('admin')|map(attribute='name')|list }} {{ people|rejectattr('admin')|map(attribute='name')|list }} {{ people|selectattr('age', 'gt', 30)|map(attribute='name')|join(',') }}",
    "{{ people|selectattr('admin', 'defined')|list|length }} {{ people|selectattr('name', 'equalto', 'bob')|first }} {{ messages|selectattr('role', 'equalto', 'user')|list|length }}",
    "{{ words|unique|list }} {{ words|unique(case_sensitive=true)|list }} {{ [1, 2, 1, 3, 2]|unique|list }}",
    "{{ xs|reverse|list }} {{ 'abc'|reverse }} {{ u|reverse }}",
    "{{ xs|sort }} {{ words|sort }} {{ words|sort(case_sensitive=true) }} {{ xs|sort(reverse=true) }} {{ people|sort(attribute='age')|map(attribute='name')|join(',') }}",
    "{{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ 2.1|round(method='ceil') }} {{ 2.9|round(0, 'floor') }} {{ 7|round }} {{ -3|abs }} {{ -2.5|abs }}",
    "{{ 'a\\nb\\n\\nc'|indent }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'a\\n\\nb'|indent(2, blank=true) }}|{{ 'x\\ny'|indent('> ') }}",
    "{{ '<b>\"&\\'</b>'|e }} {{ '<i>'|escape }} {{ '<raw>'|safe }} {{ 5|safe }}",
    "{{ d|dictsort|map('first')|list }} {{ xs|sum }} {{ people|sum(attribute='age') }} {{ xs|min }} {{ xs|max }} {{ words|max }} {{ people|max(attribute='age') }}",
    "{{ s|trim|lower|replace('hello', 'bye')|upper }}",
    "{{ xs|map('string')|join('+') }} {{ ['1', '2']|map('int')|sum }}",
    # string methods
    "[{{ s.strip() }}] [{{ s.lstrip() }}] [{{ s.rstrip() }}] [{{ 'xxhixx'.strip('x') }}] [{{ '\\n\\nhi\\n'.lstrip('\\n') }}] [{{ '..a..'.rstrip('.') }}]",
    "{{ 'a,b,,c'.split(',') }} {{ '  a  b c '.split() }} {{ 'a b c'.split(' ', 1) }} {{ 'x</think>y</think>z'.split('</think>')[-1] }}",
    "{{ s.startswith('  He') }} {{ s.endswith('x') }} {{ 'abc'.startswith(('x', 'a')) }} {{ 'HeLLo'.upper() }} {{ 'HeLLo'.lower() }} {{ \"they're bill's friends\".title() }} {{ 'hELLO'.capitalize() }}",
    "{{ 'aXbXc'.replace('X', '-') }} {{ 'hello'.find('l') }} {{ 'hello'.find('z') }} {{ 'héllo'.find('l') }} {{ 'banana'.count('a') }} {{ ', '.join(['a', 'b']) }}",
    "{{ 'line1\\nline2'.splitlines() }} {{ '123'.isdigit() }} {{ 'a1'.isdigit() }} {{ '  '.isspace() }}",
    # dict methods
    "{{ d.keys()|list }} {{ d.values()|list|length }} {{ d.get('a') }} {{ d.get('zz') }} {{ d.get('zz', 'fallback') }} {{ xs.index(2) }} {{ xs.count(3) }}",
    # globals
    "{{ range(3)|list }} {{ raise_exception is defined }} {{ strftime_now is defined }} {{ namespace is defined }}",
    "{{ strftime_now('%Y')|length }}",
    # generation tag (transformers' AssistantTracker)
    "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}{% else %}{{ m.content }}{% endif %} {% endfor %}",
    # print statement
    "{% print 'printed' %} {% print n + 1 %}",
]

ERRORS = [
    # (template, context, substring Mosaic's message must contain)
    ("{% if true %}never closed", {}, "line 1:4: unexpected end of template: the 'if' block is not closed"),
    ("{% for x in xs %}\n{{ x }}", {"xs": [1]}, "line 1:4: unexpected end of template: the 'for' block is not closed"),
    ("{% frobnicate %}", {}, "line 1:4: unknown tag 'frobnicate'"),
    ("a\n  {% include 'other.j2' %}", {}, "line 2:6: unsupported construct '{% include %}'"),
    ("{% extends 'base' %}", {}, "unsupported construct '{% extends %}'"),
    ("{% endif %}", {}, "line 1:4: unexpected 'endif'"),
    ("{{ x | bogus_filter }}", {"x": 1}, "line 1:8: unknown filter 'bogus_filter'"),
    ("\n\n   {{ x is bogus_test }}", {"x": 1}, "line 3:12: unknown test 'bogus_test'"),
    ("{{ foo.bar }}", {}, "line 1:7: 'foo' is undefined"),
    ("{{ d.missing.x }}", {"d": {}}, "'dict object' has no attribute 'missing'"),
    ("{{ xs[5].y }}", {"xs": []}, "list object has no element 5"),
    ("{{ undefined_thing + 1 }}", {}, "'undefined_thing' is undefined"),
    ("{% for x in 5 %}{% endfor %}", {}, "line 1:4: 'int' object is not iterable"),
    ("{% for x in nothing %}{% endfor %}", {"nothing": None}, "'NoneType' object is not iterable"),
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", {}, "macro 'f' nested too deeply"),
    ("{{ raise_exception('Custom failure: ' ~ n) }}", {"n": 3}, "raise_exception: Custom failure: 3"),
    ("{{ range(200000)|length }}", {}, "Range too big"),
    ("{{ 1 / 0 }}", {}, "division by zero"),
    ("{{ 'a' + 1 }}", {}, "unsupported operand type(s) for +: 'str' and 'int'"),
    ("{{ 'a' < 1 }}", {}, "'<' not supported between instances of 'str' and 'int'"),
    ("{{ xs.append(1) }}", {"xs": []}, "access to attribute 'append' of 'list' object is unsafe."),
    ("{{ 'x'|tojson(indent=2)|bogus }}", {}, "unknown filter 'bogus'"),
    ("{% set x = %}", {}, "line 1:12: expected an expression, got end of statement block"),
    ("{{ (1 + 2 }}", {}, "expected ')'"),
    ("{{ 1 + }}", {}, "unexpected end of print statement"),
    ("{# never closed", {}, "line 1:1: Missing end of comment tag"),
    ("{{ 'unterminated }}", {}, "line 1:4: unexpected end of string"),
    ("{% break %}", {}, "'break' outside of a loop"),
    ("{{ undefined_thing|tojson }}", {}, "Object of type Undefined is not JSON serializable"),
    ("{% set ns = 1 %}{% set ns.x = 2 %}", {}, "cannot assign attribute on non-namespace object"),
    ("{% for a, b in [[1, 2, 3]] %}{% endfor %}", {}, "too many values to unpack"),
    ("{{ n() }}", {"n": 1}, "'int' object is not callable"),
]


def constructs():
    cases = []
    for template in CONSTRUCTS:
        try:
            out = _compile_jinja_template(template).render(**CTX)
        except Exception as e:
            sys.exit(f"jinja2 fails on a construct case {template!r}: {e}")
        cases.append({"template": template, "context": CTX, "expected": out})
    return cases


def errors():
    cases = []
    for template, context, message in ERRORS:
        try:
            _compile_jinja_template(template).render(**context)
        except Exception as e:  # jinja2 refuses it too (TemplateError, TypeError, RecursionError, ...)
            jinja_error = f"{type(e).__name__}: {e}"
        else:
            sys.exit(f"jinja2 accepts an error case: {template!r}")
        cases.append({"template": template, "context": context, "error": message, "jinja2_error": jinja_error})
    return cases


def write(path, template, cases):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"template": template, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("out_dir", nargs="?", default=os.path.join(here, "..", "..", "tests", "data", "chat_templates"))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name, (template, cases) in models().items():
        write(os.path.join(args.out_dir, name + ".json"), template, cases)
        print(f"{name}: {len(cases)} cases ({sum('error' in c for c in cases)} errors)")
    write(os.path.join(args.out_dir, "constructs.json"), "", constructs())
    write(os.path.join(args.out_dir, "errors.json"), "", errors())
    print(f"constructs: {len(CONSTRUCTS)} cases, errors: {len(ERRORS)} cases")


if __name__ == "__main__":
    main()
