"""Jinja's compiled templates kept in the build cache (:mod:`sitegen.common.cache`), so that a build whose
templates and prose did not change does not compile them again (about 0.6 s of CPU time per build).

Jinja compiles a template's source to Python code, then runs that code to render. The code depends only
on the source, its name and file, and the environment's syntax, options, extensions and the names and
calling conventions of its filters and tests (:func:`_signature`), with one exception: while compiling,
Jinja folds constant expressions, calling a filter or test on constants, and the code then holds that
call's result (which may be one language's number format). Such a template is compiled as usual and not
stored. Filters are looked up when the code runs, so the page's per-language filters apply as before.
"""

import contextlib
import functools
import marshal

import jinja2
from jinja2.utils import _PassArg

__all__ = ["compiled_templates"]


def _signature(env, name):
    """What, besides its source, name and file, decides the code Jinja compiles a template to in ``env``:
    the syntax and whitespace options, autoescaping for that name, the extensions, and each filter's and
    test's name and calling convention (what the code passes it)."""
    def functions(table):
        return [(key, str(_PassArg.from_obj(function)), bool(getattr(function, "jinja_async_variant", False)))
                for key, function in sorted(table.items())]

    autoescape = env.autoescape(name) if callable(env.autoescape) else env.autoescape
    return [type(env).__qualname__, env.code_generator_class.__qualname__, env.block_start_string,
            env.block_end_string, env.variable_start_string, env.variable_end_string, env.comment_start_string,
            env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks,
            env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized, env.is_async,
            bool(autoescape), sorted(env.extensions), functions(env.filters), functions(env.tests)]


@contextlib.contextmanager
def compiled_templates(cache):
    """While the block runs, Jinja's ``Environment.compile`` (every template: from a file, and prose
    through ``from_string``) keeps the compiled code in ``cache`` (kind ``template``), keyed by the source,
    name, file and :func:`_signature`. Jinja folds constant expressions while compiling, calling filters
    and tests on constants: a template whose compilation called one (its code would then hold that
    filter's result, e.g. a number in one language's format) is compiled as usual and not stored."""
    original = jinja2.Environment.compile

    def compile(env, source, name=None, filename=None, raw=False, defer_init=False):
        if raw or not cache.enabled or not isinstance(source, str) or env.finalize is not None:
            return original(env, source, name, filename, raw, defer_init)
        key = cache.key("template", source, name, filename, defer_init, _signature(env, name))
        hit, code = cache.load("template", key)
        if hit:
            cache.hits.append("template")
            return marshal.loads(code)
        calls = []
        saved = env.filters, env.tests
        env.filters, env.tests = ({name: _recording(function, calls) for name, function in table.items()}
                                  for table in saved)
        try:
            code = original(env, source, name, filename, raw, defer_init)
        finally:
            env.filters, env.tests = saved
        cache.misses.append("template")
        if not calls:
            cache.store("template", key, marshal.dumps(code))
        return code

    jinja2.Environment.compile = compile
    try:
        yield cache
    finally:
        jinja2.Environment.compile = original


def _recording(function, calls):
    """``function`` (a filter or test, with its Jinja attributes) noting in ``calls`` that it ran."""
    @functools.wraps(function)
    def record(*args, **kwargs):
        calls.append(function)
        return function(*args, **kwargs)
    return record
