"""Terms across SWI-Prolog's foreign interface: Python data in, Python data out.

Nothing crosses as text to be parsed: every atom, string and integer is put
into a term with the PL_* API and read back from one, so no value (``none``,
``'``, ``).``, ``:-``, ``%``, any Unicode) can change the program that runs or
be read back as something else.

The Python side of a term is plain data:

========================  =============================
Prolog                    Python
========================  =============================
atom ``o5``               ``str`` ``"o5"``
string ``"text"``         ``PlString("text")`` in, ``str`` out
integer                   ``int``
compound ``f(a, 1)``      ``tuple`` ``("f", "a", 1)``
list ``[a, b]``           ``list`` ``["a", "b"]``
========================  =============================

so ``-a3`` is ``("-", "a3")`` and ``by(o9)`` is ``("by", "o9")``.  What the
data means is decided one layer up (``grounded.dmap.effects`` reads effects,
``grounded.dmap.operations`` writes utterances).

pyswip declares some of these C functions with types that lose information
(``term_t`` as a pointer that reads back ``None`` for 0, no length-aware text
functions), so this module declares its own prototypes on pyswip's library
handle.  Every call must happen on the thread that started Prolog.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_size_t, c_uint, c_void_p
from typing import cast

from grounded.core.errors import InputError, PrologError
from grounded.solvers.termdata import PlString, Shape, Value

c_uintptr_t = c_size_t  # uintptr_t: the same width as size_t on every platform SWI-Prolog supports

# -- the C interface (SWI-Prolog.h) -------------------------------------------------------

PL_VARIABLE, PL_ATOM, PL_INTEGER, PL_STRING, PL_TERM, PL_NIL, PL_LIST_PAIR = 1, 2, 3, 6, 7, 8, 10
CVT_ATOM, CVT_STRING, CVT_EXCEPTION = 0x1, 0x2, 0x1000
BUF_STACK, REP_UTF8 = 0x10000, 0x100000
PL_Q_NODEBUG, PL_Q_CATCH_EXCEPTION = 0x4, 0x8

term_t = c_uintptr_t
atom_t = c_uintptr_t
functor_t = c_uintptr_t


class _C:
    """The prototypes this module uses, bound to pyswip's copy of libswipl."""

    def __init__(self, lib: ctypes.CDLL):
        def fn(name: str, restype, *argtypes):
            f = lib[name]  # a fresh function object: pyswip's own prototypes stay as they are
            f.restype, f.argtypes = restype, list(argtypes)
            return f

        self.new_term_ref = fn("PL_new_term_ref", term_t)
        self.new_term_refs = fn("PL_new_term_refs", term_t, c_size_t)
        self.open_foreign_frame = fn("PL_open_foreign_frame", c_uintptr_t)
        self.discard_foreign_frame = fn("PL_discard_foreign_frame", None, c_uintptr_t)
        self.put_chars = fn("PL_put_chars", c_int, term_t, c_int, c_size_t, c_char_p)
        self.put_int64 = fn("PL_put_int64", c_int, term_t, c_int64)
        self.put_nil = fn("PL_put_nil", c_int, term_t)
        self.cons_list = fn("PL_cons_list", c_int, term_t, term_t, term_t)
        self.cons_functor_v = fn("PL_cons_functor_v", c_int, term_t, functor_t, term_t)
        self.new_atom_mbchars = fn("PL_new_atom_mbchars", atom_t, c_int, c_size_t, c_char_p)
        self.new_functor = fn("PL_new_functor_sz", functor_t, atom_t, c_size_t)
        self.put_atom = fn("PL_put_atom", c_int, term_t, atom_t)
        self.put_term = fn("PL_put_term", c_int, term_t, term_t)
        self.is_functor = fn("PL_is_functor", c_int, term_t, functor_t)
        self.term_type = fn("PL_term_type", c_int, term_t)
        self.get_nchars = fn("PL_get_nchars", c_int, term_t, POINTER(c_size_t), POINTER(c_char_p), c_uint)
        self.get_int64 = fn("PL_get_int64", c_int, term_t, POINTER(c_int64))
        self.get_atom = fn("PL_get_atom", c_int, term_t, POINTER(atom_t))
        self.get_nil = fn("PL_get_nil", c_int, term_t)
        self.register_atom = fn("PL_register_atom", None, atom_t)
        self.unregister_atom = fn("PL_unregister_atom", None, atom_t)
        self.get_name_arity = fn("PL_get_name_arity_sz", c_int, term_t, POINTER(atom_t), POINTER(c_size_t))
        self.get_arg = fn("PL_get_arg_sz", c_int, c_size_t, term_t, term_t)
        self.get_list = fn("PL_get_list", c_int, term_t, term_t, term_t)
        self.unify = fn("PL_unify", c_int, term_t, term_t)
        self.predicate = fn("PL_predicate", c_void_p, c_char_p, c_int, c_char_p)
        self.call_predicate = fn("PL_call_predicate", c_int, c_void_p, c_int, c_void_p, term_t)
        self.mark_string_buffers = fn("PL_mark_string_buffers", None, POINTER(c_uintptr_t))
        self.release_string_buffers = fn("PL_release_string_buffers_from_mark", None, c_uintptr_t)
        self.register_foreign_in_module = fn("PL_register_foreign_in_module", c_int, c_char_p, c_char_p, c_int,
                                             c_void_p, c_int)


_CAUSE: Shape = {"by": ("literal",)}
POOL_DEPTH = 12
"""Levels of nesting read by shape with pooled term references (the protocol needs 6)."""
ATOM_CACHE = 100_000
"""Atoms whose text is kept by handle (each registered while kept)."""

def _freeze(shape: Shape) -> object:
    """A hashable key for a shape: equal shapes, equal keys."""
    if isinstance(shape, str):
        return shape
    if isinstance(shape, tuple):
        return ("list", _freeze(shape[1]))
    table = cast(dict[str, tuple[Shape, ...]], shape)
    return tuple(sorted((name, tuple(_freeze(s) for s in subs)) for name, subs in table.items()))


FOREIGN2 = ctypes.CFUNCTYPE(c_uintptr_t, term_t, term_t)
"""A deterministic foreign predicate of arity 2, as SWI-Prolog calls it."""


def encode_text(text: str, what: str = "text") -> bytes:
    """UTF-8 for Prolog; a lone surrogate (not text) is the caller's input error."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{what} {text[:40]!r} holds a lone surrogate (U+{ord(text[exc.start]):04X} at "
                         f"position {exc.start}), which is not text") from None


class Terms:
    """Builds and reads terms; one instance per process, on the Prolog thread."""

    def __init__(self, lib: ctypes.CDLL):
        self.c = _C(lib)
        self._functors: dict[tuple[str, int], int] = {}
        self.raised: BaseException | None = None
        self._atoms: dict[int, str] = {}
        self._readers: dict[object, Callable[[int, int, int], Value]] = {}
        self._by_id: dict[int, tuple[Shape, Callable[[int, int, int], Value]]] = {}
        """An exception a foreign predicate's body raised during the current call."""
        self._names: dict[int, str] = {}
        """Names of the functors this instance created: their atoms are registered (never
        garbage-collected), so the handle identifies the name for the process's lifetime."""
        # out-parameters, reused (one thread): each value is read before the next call
        self._atom, self._size, self._chars, self._int = atom_t(), c_size_t(), c_char_p(), c_int64()
        self._atom_ref, self._size_ref = byref(self._atom), byref(self._size)
        self._chars_ref, self._int_ref = byref(self._chars), byref(self._int)

    def known_names(self, names: list[tuple[str, int]]) -> None:
        """Create these functors up front, so that reading them back needs no text lookup."""
        for name, arity in names:
            self.functor(name, arity)

    # -- Python -> Prolog ------------------------------------------------------------------

    def functor(self, name: str, arity: int) -> int:
        key = (name, arity)
        f = self._functors.get(key)
        if f is None:
            raw = encode_text(name, "functor name")
            atom = self.c.new_atom_mbchars(REP_UTF8, len(raw), raw)  # registered: it stays alive
            f = self.c.new_functor(atom, arity)
            self._functors[key] = f
            self._names[atom] = name
        return f

    def put(self, t: int, value: Value) -> None:
        """Put ``value`` into the fresh term reference ``t``."""
        c = self.c
        if isinstance(value, str):
            raw = encode_text(value, "id")
            kind = PL_STRING if isinstance(value, PlString) else PL_ATOM
            ok = c.put_chars(t, kind | REP_UTF8, len(raw), raw)
        elif isinstance(value, bool):
            raw = b"true" if value else b"false"
            ok = c.put_chars(t, PL_ATOM | REP_UTF8, len(raw), raw)
        elif isinstance(value, int):
            ok = c.put_int64(t, value)
        elif isinstance(value, tuple):
            name, *args = value
            refs = c.new_term_refs(len(args)) if args else 0
            for i, arg in enumerate(args):
                self.put(refs + i, arg)
            ok = c.cons_functor_v(t, self.functor(name, len(args)), refs)
        elif isinstance(value, list):
            ok = c.put_nil(t)
            if value:
                head = c.new_term_ref()
                for item in reversed(value):
                    self.put(head, item)
                    ok = ok and c.cons_list(t, head, t)
        else:
            raise TypeError(f"no Prolog term for {type(value).__name__} {value!r}")
        if not ok:
            raise PrologError(f"Prolog could not build a term for {value!r:.80} (out of stack?)")

    # -- Prolog -> Python -----------------------------------------------------------------

    def get(self, t: int) -> Value:
        """Read the term at ``t`` as Python data (see the module docstring)."""
        c = self.c
        kind = c.term_type(t)
        if kind == PL_ATOM or kind == PL_STRING:
            return self.text(t)
        if kind == PL_TERM:
            name_atom, arity = self._atom, self._size
            c.get_name_arity(t, self._atom_ref, self._size_ref)
            name = self._names.get(name_atom.value)
            n = arity.value
            if name is None:
                probe = c.new_term_ref()
                c.put_atom(probe, name_atom.value)
                name = self.text(probe)
            arg = c.new_term_ref()
            args = []
            for i in range(1, n + 1):
                c.get_arg(i, t, arg)
                args.append(self.get(arg))
            return (name, *args)
        if kind == PL_INTEGER:
            if not c.get_int64(t, self._int_ref):
                raise PrologError("an integer beyond 64 bits came back from Prolog")
            return self._int.value
        if kind == PL_NIL:
            return []
        if kind == PL_LIST_PAIR:
            items = []
            head = c.new_term_refs(2)
            tail = head + 1
            c.put_term(tail, t)
            while c.get_list(tail, head, tail):
                items.append(self.get(head))
            if c.term_type(tail) != PL_NIL:
                raise PrologError("a partial list came back from Prolog")
            return items
        if kind == PL_VARIABLE:
            raise PrologError("an unbound variable came back from Prolog")
        raise PrologError(f"a term of type {kind} came back from Prolog")

    def text(self, t: int) -> str:
        """The text of an atom or string, whatever characters it holds (NUL included)."""
        if not self.c.get_nchars(t, self._size_ref, self._chars_ref, CVT_ATOM | CVT_STRING | REP_UTF8 | BUF_STACK):
            raise PrologError("Prolog returned a term that is not text where text was expected")
        return ctypes.string_at(self._chars, self._size.value).decode("utf-8")

    # -- Prolog -> Python, by a declared shape ------------------------------------------

    def read(self, t: int, shape: Shape, pool: int | None = None, depth: int = 0) -> Value:
        """Read the term at ``t`` knowing its shape, with as few foreign calls as it takes.

        A shape is ``"int"``, ``"text"`` (atom or string), ``"literal"`` (an atom, or
        ``-(Atom)`` read as ``"-Atom"``), ``"cause"`` (``none`` read as None, ``by(L)``
        as the literal), ``"any"`` (``get``), ``("list", shape)``, or a dict from
        functor name to the shapes of its arguments (a compound whose name is a key;
        read as ``(name, *args)``).  A term that does not fit raises PrologError.
        ``pool`` is a block of term references, three per level of nesting, made
        once per call (``_pool``) rather than once per subterm.  Each shape is
        compiled once into a reader (``_reader``).
        """
        return self._reader(shape)(t, self._pool() if pool is None else pool, depth)

    def _reader(self, shape: Shape) -> Callable[[int, int, int], Value]:
        """The compiled reader of a shape: found by the shape object itself when it is one
        seen before (the protocol's shapes are constants), else by its structure."""
        if isinstance(shape, str):
            key: object = shape
        else:
            seen = self._by_id.get(id(shape))
            if seen is not None and seen[0] is shape:
                return seen[1]
            key = _freeze(shape)
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = self._compile(shape)
        if not isinstance(shape, str) and len(self._by_id) < 256:
            self._by_id[id(shape)] = (shape, reader)  # holds the shape, so its id is not reused
        return reader

    def _compile(self, shape: Shape) -> Callable[[int, int, int], Value]:
        c = self.c
        get_int64, int_ref, int_box = c.get_int64, self._int_ref, self._int
        get_atom, atom_ref, atom_box = c.get_atom, self._atom_ref, self._atom
        atom_text, text = self._atom_text, self.text

        def bad(t: int, what: str) -> PrologError:
            return PrologError(f"expected {what} from Prolog, got {self.get(t)!r:.80}")

        if shape == "int":
            def read_int(t: int, pool: int, depth: int) -> Value:
                if not get_int64(t, int_ref):
                    raise bad(t, "an integer")
                return int_box.value
            return read_int
        if shape == "text":
            def read_text(t: int, pool: int, depth: int) -> Value:
                if get_atom(t, atom_ref):
                    return atom_text(t, atom_box.value)
                return text(t)
            return read_text
        if shape == "literal":
            minus = self.functor("-", 1)
            get_arg, is_functor = c.get_arg, c.is_functor

            def read_literal(t: int, pool: int, depth: int) -> Value:
                if get_atom(t, atom_ref):
                    return atom_text(t, atom_box.value)
                arg = pool + 3 * depth
                if not (is_functor(t, minus) and get_arg(1, t, arg) and get_atom(arg, atom_ref)):
                    raise bad(t, "a literal")
                return "-" + atom_text(arg, atom_box.value)
            return read_literal
        if shape == "cause":
            by = self._reader(_CAUSE)

            def read_cause(t: int, pool: int, depth: int) -> Value:
                if get_atom(t, atom_ref):
                    if atom_text(t, atom_box.value) != "none":
                        raise bad(t, "a cause")
                    return None
                return by(t, pool, depth)[1]  # type: ignore[index]
            return read_cause
        if shape == "any":
            return lambda t, pool, depth: self.get(t)
        if isinstance(shape, tuple):  # ("list", item shape)
            item = self._reader(shape[1])
            put_term, get_list, get_nil = c.put_term, c.get_list, c.get_nil

            def read_list(t: int, pool: int, depth: int) -> Value:
                if depth >= POOL_DEPTH:
                    raise PrologError("a term nested deeper than the protocol's came back from Prolog")
                head = pool + 3 * depth + 1
                tail = head + 1
                put_term(tail, t)
                items = []
                while get_list(tail, head, tail):
                    items.append(item(head, pool, depth + 1))
                if not get_nil(tail):
                    raise PrologError("a partial list came back from Prolog")
                return items
            return read_list
        # a compound: one entry per functor, by the handle of its (registered) name
        table = cast(dict[str, tuple[Shape, ...]], shape)
        entries = {}
        for name, shapes in table.items():
            self.functor(name, len(shapes))
            atom = next(a for a, n in self._names.items() if n == name)
            entries[atom] = (name, len(shapes), [self._reader(sub) for sub in shapes])
        get_name_arity, get_arg, size_box, size_ref = c.get_name_arity, c.get_arg, self._size, self._size_ref

        def read_compound(t: int, pool: int, depth: int) -> Value:
            if depth >= POOL_DEPTH:
                raise PrologError("a term nested deeper than the protocol's came back from Prolog")
            if not get_name_arity(t, atom_ref, size_ref):
                raise bad(t, "a compound")
            entry = entries.get(atom_box.value)
            if entry is None or entry[1] != size_box.value:
                raise bad(t, f"one of {', '.join(table)}")
            name, _, readers = entry
            arg = pool + 3 * depth
            out: list[Value] = [name]
            for i, read in enumerate(readers, 1):
                get_arg(i, t, arg)
                out.append(read(arg, pool, depth + 1))
            return tuple(out)
        return read_compound

    def _pool(self) -> int:
        return int(self.c.new_term_refs(3 * POOL_DEPTH))

    def _atom_text(self, t: int, atom: int) -> str:
        """The text of an atom, by its handle when this process has seen it before.

        A handle names its text only while the atom lives, so every atom kept here
        is registered (never garbage-collected) until it leaves the cache."""
        text = self._names.get(atom) or self._atoms.get(atom)
        if text is None:
            text = self.text(t)
            self.c.register_atom(atom)
            self._atoms[atom] = text
            if len(self._atoms) > ATOM_CACHE:
                old = next(iter(self._atoms))
                del self._atoms[old]
                self.c.unregister_atom(old)
        return text

    # -- calls -----------------------------------------------------------------------------

    def call(self, predicate: int, args: list[Value], shapes: list[Shape | None]) -> list[Value]:
        """Call ``predicate`` with ``args`` (None: an output variable); return the arguments,
        the outputs as Prolog bound them, read by ``shapes``.

        Text read back lives on a string stack that SWI-Prolog releases only when a
        foreign predicate returns; called from outside one, the mark is ours to release
        (without it the process aborts after 2^20 calls: "Too many stacked strings").
        """
        c = self.c
        mark = c_uintptr_t()
        c.mark_string_buffers(byref(mark))
        frame = c.open_foreign_frame()
        try:
            refs = c.new_term_refs(len(args) + 3 * POOL_DEPTH)  # the arguments, then the reading pool
            for i, value in enumerate(args):
                if value is not None:
                    self.put(refs + i, value)
            if not c.call_predicate(None, PL_Q_NODEBUG | PL_Q_CATCH_EXCEPTION, predicate, refs):
                raise PrologError("the Prolog bridge predicate failed or raised")
            pool = refs + len(args)
            return [self.read(refs + i, shapes[i] or "any", pool) if value is None else value
                    for i, value in enumerate(args)]
        finally:
            c.discard_foreign_frame(frame)
            c.release_string_buffers(mark.value)

    def call_text(self, predicate: int, text: str, shape: Shape) -> Value:
        """Call ``predicate(+Text, -Reply)`` with ``text`` as a string; return the reply as text when it
        is a string (one foreign call to read it), else read by ``shape``.

        The live apply's request and reply (py_apply/2): built and read with as few foreign calls
        as a call takes, where ``call`` would build and read a term node by node.
        """
        c = self.c
        mark = c_uintptr_t()
        c.mark_string_buffers(byref(mark))
        frame = c.open_foreign_frame()
        try:
            refs = c.new_term_refs(2 + 3 * POOL_DEPTH)  # the arguments, then the reading pool
            raw = encode_text(text)
            if not c.put_chars(refs, PL_STRING | REP_UTF8, len(raw), raw):
                raise PrologError(f"Prolog could not build a string of {len(raw)} bytes (out of stack?)")
            if not c.call_predicate(None, PL_Q_NODEBUG | PL_Q_CATCH_EXCEPTION, predicate, refs):
                raise PrologError("the Prolog bridge predicate failed or raised")
            reply = refs + 1
            if c.get_nchars(reply, self._size_ref, self._chars_ref, CVT_STRING | REP_UTF8 | BUF_STACK):
                return ctypes.string_at(self._chars, self._size.value).decode("utf-8")
            return self.read(reply, shape, refs + 2)
        finally:
            c.discard_foreign_frame(frame)
            c.release_string_buffers(mark.value)

    def foreign(self, module: str, name: str, body: Callable[[Value], Value], shape: Shape = "any") -> object:
        """Register ``module:name(+In, -Out)``, answered by ``body(in) -> out`` (``in`` read by ``shape``).

        ``body`` returning None makes the predicate fail.  An exception must not
        cross into C: it is kept in ``raised`` (the first one of a call) and the
        predicate fails; whoever made the outer call raises it again.  The returned
        object must be kept alive as long as Prolog may call it.
        """
        def call(t_in: int, t_out: int) -> int:
            try:
                out = body(self.read(t_in, shape))
                if out is None:
                    return 0
                built = self.c.new_term_ref()
                self.put(built, out)
                return 1 if self.c.unify(t_out, built) else 0
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller, never lost
                if self.raised is None:
                    self.raised = exc
                return 0

        callback = FOREIGN2(call)
        if not self.c.register_foreign_in_module(module.encode(), name.encode(), 2,
                                                 ctypes.cast(callback, c_void_p), 0):
            raise PrologError(f"cannot register the foreign predicate {module}:{name}/2")
        return callback
