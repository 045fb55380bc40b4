package dev.baton.spring.aop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Follows, through one method's instructions, which operand-stack slots and local variables hold the raw {@code this}
 * of a class of the scanned nest (the bean's class and the classes declared in it), and reports the calls of an
 * annotated method, and the method references to one, whose receiver is the bean's own {@code this}. A value is the
 * internal name of the class whose {@code this} it is, or null when it is anything else (or not known). A field read
 * on such a {@code this} yields what the nest says the field holds: the enclosing instance for {@code this$0}, what
 * every store put in a final field; the values a method starts with are what the nest says its callers pass.
 *
 * <p>The analysis asks whether a slot holds {@code this} on <em>every</em> path that reaches an instruction, so that a
 * receiver chosen at run time ({@code (ok ? this : other).pay()}, a local reassigned in a loop) is not reported: at
 * each jump target the states of all the edges into it are met (a slot keeps its value only where every edge agrees).
 * Backward jumps are known only once their source has been seen, so the method is replayed until the states at its
 * jump targets no longer change; an exception handler starts from the meet of the states of the instructions it
 * protects. Reports come from the last replay only.
 */
final class ThisFlow extends MethodVisitor {

    /** What the scan of a whole nest knows, and collects, across the methods of one round. */
    interface Nest {
        /** The internal name of the class whose {@code this} is the bean's (the class being checked). */
        String bean();

        /** Whether {@code owner} (an internal name) is the bean's class, a superclass or an interface of it. */
        boolean inBeanHierarchy(String owner);

        /** The annotated methods, as {@code name + descriptor}. */
        Set<String> annotated();

        /** The class that a synthetic {@code this$N} field of {@code owner} refers to, or null for any other field. */
        String outerInstanceField(String owner, String field);

        /** Whether the field is final and declared by a class of the nest, so that only the nest's code sets it. */
        boolean trackedField(String owner, String field);

        /** What the last round found every store into a tracked field to store (null: not one this). */
        String fieldValue(String owner, String field);

        /** Whether the nest's code alone can call the method (a lambda's body, a local or anonymous constructor). */
        boolean callableOnlyFromNest(String owner, String nameAndDescriptor);

        /** What the last round found every call of such a method to pass, slot by slot; null if none was seen. */
        List<String> entryValues(String owner, String nameAndDescriptor);

        /** Records one call of such a method with the values it passes, slot by slot. */
        void called(String owner, String nameAndDescriptor, List<String> values);

        /** Records one store into a tracked field. */
        void stored(String owner, String field, String value);

        /** Records one call of an annotated method on the bean's {@code this}. */
        void found(SelfInvocationScanner.SelfCall call);
    }

    /** The stacks and locals with which control reaches a point. Immutable. */
    private record State(List<String> stack, List<String> locals) {
        State {
            stack = Collections.unmodifiableList(new ArrayList<>(stack));
            locals = Collections.unmodifiableList(new ArrayList<>(locals));
        }

        /** What holds on both paths; a stack of differing depth (not verifiable) holds nothing known. */
        State meet(State other) {
            List<String> s = new ArrayList<>(stack.size());
            for (int i = 0; i < stack.size(); i++) {
                s.add(stack.size() == other.stack.size() ? same(stack.get(i), other.stack.get(i)) : null);
            }
            int n = Math.max(locals.size(), other.locals.size());
            List<String> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(same(at(locals, i), at(other.locals, i)));
            }
            return new State(s, l);
        }
    }

    private record TryCatch(Label start, Label end, Label handler) {
    }

    /**
     * One method's code as the class reader visits it, kept to be replayed: by each round over the nest, and within
     * one, until the states at the jump targets settle.
     */
    static final class Code {
        private final List<Consumer<MethodVisitor>> code = new ArrayList<>();
        private final List<TryCatch> tryCatches = new ArrayList<>();

        /** The visitor that records the code. */
        MethodVisitor recorder() {
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    tryCatches.add(new TryCatch(start, end, handler));
                }

                @Override
                public void visitLabel(Label label) {
                    code.add(v -> v.visitLabel(label));
                }

                @Override
                public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stackTypes) {
                    Object[] s = stackTypes == null ? new Object[0] : stackTypes.clone();
                    code.add(v -> v.visitFrame(type, numLocal, null, numStack, s));
                }

                @Override
                public void visitInsn(int opcode) {
                    code.add(v -> v.visitInsn(opcode));
                }

                @Override
                public void visitIntInsn(int opcode, int operand) {
                    code.add(v -> v.visitIntInsn(opcode, operand));
                }

                @Override
                public void visitVarInsn(int opcode, int varIndex) {
                    code.add(v -> v.visitVarInsn(opcode, varIndex));
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    code.add(v -> v.visitTypeInsn(opcode, type));
                }

                @Override
                public void visitFieldInsn(int opcode, String fieldOwner, String name, String desc) {
                    code.add(v -> v.visitFieldInsn(opcode, fieldOwner, name, desc));
                }

                @Override
                public void visitMethodInsn(int opcode, String methodOwner, String name, String desc, boolean itf) {
                    code.add(v -> v.visitMethodInsn(opcode, methodOwner, name, desc, itf));
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String desc, Handle bootstrap, Object... args) {
                    code.add(v -> v.visitInvokeDynamicInsn(name, desc, bootstrap, args));
                }

                @Override
                public void visitJumpInsn(int opcode, Label label) {
                    code.add(v -> v.visitJumpInsn(opcode, label));
                }

                @Override
                public void visitLdcInsn(Object value) {
                    code.add(v -> v.visitLdcInsn(value));
                }

                @Override
                public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
                    code.add(v -> v.visitTableSwitchInsn(min, max, dflt, labels));
                }

                @Override
                public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
                    code.add(v -> v.visitLookupSwitchInsn(dflt, keys, labels));
                }

                @Override
                public void visitMultiANewArrayInsn(String desc, int numDimensions) {
                    code.add(v -> v.visitMultiANewArrayInsn(desc, numDimensions));
                }
            };
        }
    }

    /** A bound on the replays: enough for any nesting of loops javac writes; past it, the method is not judged. */
    private static final int MAX_REPLAYS = 64;

    private final Nest nest;
    private final String owner;
    private final String method;
    private final String descriptor;
    private final String callerLabel;
    private final List<String> entry;
    private final List<Consumer<MethodVisitor>> code;
    private final List<TryCatch> tryCatches;
    /** The meet of every edge seen so far into each jump target and handler, kept across replays. */
    private final Map<Label, State> incoming = new HashMap<>();
    /** Set when the replays did not settle: the method is then not judged. */
    private boolean givenUp;

    // The state of one replay.
    private final List<String> stack = new ArrayList<>();
    private final List<String> locals = new ArrayList<>();
    private final Set<TryCatch> active = new LinkedHashSet<>();
    private boolean live;
    private boolean lost;
    private final List<Runnable> reports = new ArrayList<>();

    /**
     * @param nest        what the scan knows and collects
     * @param recorded    the method's code
     * @param owner       the internal name of the class that declares the method
     * @param access      the method's access flags
     * @param method      its name
     * @param descriptor  its descriptor
     * @param callerLabel how messages name the method
     */
    ThisFlow(Nest nest, Code recorded, String owner, int access, String method, String descriptor,
             String callerLabel) {
        super(Opcodes.ASM9);
        this.nest = nest;
        this.code = recorded.code;
        this.tryCatches = recorded.tryCatches;
        this.owner = owner;
        this.method = method;
        this.descriptor = descriptor;
        this.callerLabel = callerLabel;
        List<String> e = new ArrayList<>(Collections.nCopies(Type.getArgumentsAndReturnSizes(descriptor) >> 2, null));
        if ((access & Opcodes.ACC_STATIC) == 0) {
            e.set(0, owner); // local 0 of an instance method: this
        }
        this.entry = e;
    }

    /**
     * Replays the method until its jump targets' states settle, then hands the nest what the last replay saw: the
     * self-calls, the calls of the nest's own methods and the stores into tracked fields. A method whose shape the
     * simulation does not follow reports no self-call, and passes and stores nothing known to be this.
     */
    void analyze() {
        if (code.isEmpty()) {
            return; // abstract or native
        }
        for (int replay = 0; ; replay++) {
            Map<Label, State> before = new HashMap<>(incoming);
            replay();
            if (incoming.equals(before)) {
                break;
            }
            if (replay == MAX_REPLAYS) {
                givenUp = true;
                replay(); // once more to collect the calls and stores, which givenUp makes unknown
                break;
            }
        }
        reports.forEach(Runnable::run);
    }

    private void replay() {
        stack.clear();
        locals.clear();
        List<String> start = nest.callableOnlyFromNest(owner, method + descriptor)
                ? nest.entryValues(owner, method + descriptor) : null;
        for (int i = 0; i < entry.size(); i++) {
            locals.add(i == 0 && entry.get(0) != null ? entry.get(0) : start != null ? at(start, i) : null);
        }
        active.clear();
        live = true;
        lost = givenUp;
        reports.clear();
        for (Consumer<MethodVisitor> insn : code) {
            insn.accept(this);
        }
    }

    // ---- the simulation

    private static String same(String a, String b) {
        return Objects.equals(a, b) ? a : null;
    }

    private static String at(List<String> values, int i) {
        return i < values.size() ? values.get(i) : null;
    }

    private State state() {
        return new State(stack, locals);
    }

    private void mergeInto(Label target, State state) {
        incoming.merge(target, state, State::meet);
    }

    /** Called before each instruction: whether it runs; the handlers protecting it start from its state. */
    private boolean step() {
        if (!live) {
            return false;
        }
        if (!active.isEmpty()) {
            List<String> exception = new ArrayList<>();
            exception.add(null);
            State atHandler = new State(exception, locals);
            for (TryCatch t : active) {
                mergeInto(t.handler(), atHandler);
            }
        }
        return true;
    }

    private void push(int words, String value) {
        for (int i = 0; i < words; i++) {
            stack.add(value);
        }
    }

    /** Pops {@code words} slots; returns what the deepest of them held. */
    private String pop(int words) {
        String deepest = null;
        for (int i = 0; i < words; i++) {
            if (stack.isEmpty()) {
                lost = true; // a shape this simulation does not follow: judge nothing in this method
                return null;
            }
            deepest = stack.remove(stack.size() - 1);
        }
        return deepest;
    }

    private String peek(int fromTop) {
        int i = stack.size() - 1 - fromTop;
        if (i < 0) {
            lost = true;
            return null;
        }
        return stack.get(i);
    }

    /** Pops the arguments of a call and returns them slot by slot, in the order of the callee's parameters. */
    private List<String> popArguments(String desc) {
        int words = (Type.getArgumentsAndReturnSizes(desc) >> 2) - 1;
        List<String> values = new ArrayList<>(Collections.nCopies(words, null));
        for (int i = words - 1; i >= 0; i--) {
            values.set(i, pop(1));
        }
        return values;
    }

    private void setLocal(int index, String value) {
        while (locals.size() <= index) {
            locals.add(null);
        }
        locals.set(index, value);
    }

    @Override
    public void visitLabel(Label label) {
        State in = incoming.get(label);
        if (in != null) {
            State now = live ? state().meet(in) : in;
            stack.clear();
            stack.addAll(now.stack());
            locals.clear();
            locals.addAll(now.locals());
            live = true;
        }
        // A label reached neither by falling through nor by a jump or handler seen so far: not yet known (a loop
        // body entered from below is reached in a later replay); nothing in it is judged in this one.
        for (TryCatch t : tryCatches) {
            if (t.end() == label) {
                active.remove(t);
            }
        }
        for (TryCatch t : tryCatches) {
            if (t.start() == label && t.start() != t.end()) {
                active.add(t);
            }
        }
    }

    @Override
    public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stackTypes) {
        if (!live) {
            return;
        }
        int words = 0;
        for (int i = 0; i < numStack; i++) {
            Object t = stackTypes[i];
            words += t == Opcodes.LONG || t == Opcodes.DOUBLE ? 2 : 1;
        }
        if (words != stack.size()) { // a shape not followed: the slots hold nothing known
            stack.clear();
            push(words, null);
        }
    }

    @Override
    public void visitInsn(int opcode) {
        if (!step()) {
            return;
        }
        switch (opcode) {
            case Opcodes.DUP -> push(1, peek(0));
            case Opcodes.DUP_X1 -> dupDown(1, 1);
            case Opcodes.DUP_X2 -> dupDown(1, 2);
            case Opcodes.DUP2 -> {
                String b = peek(1);
                String a = peek(0);
                push(1, b);
                push(1, a);
            }
            case Opcodes.DUP2_X1 -> dupDown(2, 1);
            case Opcodes.DUP2_X2 -> dupDown(2, 2);
            case Opcodes.SWAP -> {
                String a = pop(1);
                String b = pop(1);
                push(1, a);
                push(1, b);
            }
            case Opcodes.IRETURN, Opcodes.LRETURN, Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN,
                 Opcodes.RETURN, Opcodes.ATHROW -> {
                stack.clear();
                live = false;
            }
            default -> {
                int[] effect = InstructionEffect.of(opcode);
                pop(effect[0]);
                push(effect[1], null);
            }
        }
    }

    /** DUP_X*: copies the top {@code words} slots below the {@code below} slots under them. */
    private void dupDown(int words, int below) {
        List<String> top = new ArrayList<>(stack.subList(Math.max(0, stack.size() - words), stack.size()));
        int at = stack.size() - words - below;
        if (at < 0 || top.size() < words) {
            lost = true;
            return;
        }
        stack.addAll(at, top);
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
        if (!step()) {
            return;
        }
        if (opcode == Opcodes.NEWARRAY) {
            pop(1);
        }
        push(1, null);
    }

    @Override
    public void visitVarInsn(int opcode, int varIndex) {
        if (!step()) {
            return;
        }
        switch (opcode) {
            case Opcodes.ALOAD -> push(1, at(locals, varIndex));
            case Opcodes.ILOAD, Opcodes.FLOAD -> push(1, null);
            case Opcodes.LLOAD, Opcodes.DLOAD -> push(2, null);
            case Opcodes.ASTORE -> setLocal(varIndex, pop(1));
            case Opcodes.ISTORE, Opcodes.FSTORE -> {
                pop(1);
                setLocal(varIndex, null);
            }
            case Opcodes.LSTORE, Opcodes.DSTORE -> {
                pop(2);
                setLocal(varIndex, null);
                setLocal(varIndex + 1, null);
            }
            default -> {
                // RET: no stack effect (absent from class files javac writes today)
            }
        }
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
        if (!step()) {
            return;
        }
        if (opcode == Opcodes.NEW) {
            push(1, null);
        } else if (opcode == Opcodes.CHECKCAST) {
            push(1, pop(1)); // a cast of this is still this
        } else { // ANEWARRAY, INSTANCEOF
            pop(1);
            push(1, null);
        }
    }

    @Override
    public void visitFieldInsn(int opcode, String fieldOwner, String name, String desc) {
        if (!step()) {
            return;
        }
        int size = Type.getType(desc).getSize();
        switch (opcode) {
            case Opcodes.GETSTATIC -> push(size, null);
            case Opcodes.PUTSTATIC -> pop(size);
            case Opcodes.GETFIELD -> {
                String receiver = pop(1);
                String value = null;
                if (fieldOwner.equals(receiver)) { // a field of this object, not of another of its class
                    String outer = nest.outerInstanceField(fieldOwner, name);
                    value = outer != null ? outer
                            : nest.trackedField(fieldOwner, name) ? nest.fieldValue(fieldOwner, name) : null;
                }
                push(size, value);
            }
            default -> { // PUTFIELD
                String value = pop(size);
                pop(1);
                if (nest.trackedField(fieldOwner, name)) {
                    report(() -> nest.stored(fieldOwner, name, lost ? null : value));
                }
            }
        }
    }

    @Override
    public void visitMethodInsn(int opcode, String methodOwner, String name, String desc, boolean isInterface) {
        if (!step()) {
            return;
        }
        List<String> arguments = popArguments(desc);
        String receiver = opcode == Opcodes.INVOKESTATIC ? null : pop(1);
        if (opcode == Opcodes.INVOKESPECIAL && name.equals("<init>")) {
            arguments.add(0, null); // local 0 of the constructor: the new object
        } else if (receiver != null) {
            arguments.add(0, receiver);
        }
        if (opcode != Opcodes.INVOKESPECIAL // a super call, a private method or a constructor: no proxy to miss
                && nest.bean().equals(receiver) && nest.inBeanHierarchy(methodOwner)
                && nest.annotated().contains(name + desc)
                && !(owner.equals(nest.bean()) && name.equals(method) && desc.equals(descriptor))) {
            // (a method calling itself on this is already inside the proxy's advice)
            report(() -> {
                if (!lost) {
                    nest.found(new SelfInvocationScanner.SelfCall(callerLabel, name));
                }
            });
        }
        calls(methodOwner, name + desc, arguments);
        push(Type.getReturnType(desc).getSize(), null);
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String desc, Handle bootstrap, Object... args) {
        if (!step()) {
            return;
        }
        List<String> captured = popArguments(desc);
        if (bootstrap.getOwner().equals("java/lang/invoke/LambdaMetafactory") && args.length > 1
                && args[1] instanceof Handle target) {
            int tag = target.getTag();
            boolean bound = tag == Opcodes.H_INVOKEVIRTUAL || tag == Opcodes.H_INVOKEINTERFACE;
            // A method reference bound to this (this::pay): the object it makes calls pay on the raw bean.
            if (bound && !captured.isEmpty() && nest.bean().equals(captured.get(0))
                    && nest.inBeanHierarchy(target.getOwner())
                    && nest.annotated().contains(target.getName() + target.getDesc())) {
                report(() -> {
                    if (!lost) {
                        nest.found(new SelfInvocationScanner.SelfCall("a method reference in " + callerLabel,
                                target.getName()));
                    }
                });
            }
            // A lambda's body receives the captured values first, slot by slot (its receiver first if it has one).
            calls(target.getOwner(), target.getName() + target.getDesc(), captured);
        }
        push(Type.getReturnType(desc).getSize(), null);
    }

    /** A call, or a lambda's creation, that passes values to a method only the nest's code calls. */
    private void calls(String calleeOwner, String nameAndDescriptor, List<String> values) {
        if (nest.callableOnlyFromNest(calleeOwner, nameAndDescriptor)) {
            List<String> passed = new ArrayList<>(values);
            report(() -> nest.called(calleeOwner, nameAndDescriptor,
                    lost ? new ArrayList<>(Collections.nCopies(passed.size(), null)) : passed));
        }
    }

    /** Keeps an outcome of this replay, handed to the nest only once the replays have settled. */
    private void report(Runnable outcome) {
        reports.add(outcome);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
        if (!step()) {
            return;
        }
        switch (opcode) {
            case Opcodes.GOTO, Opcodes.JSR -> {
                // no stack effect (JSR is absent from class files javac writes today)
            }
            case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
                 Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE -> pop(2);
            default -> pop(1);
        }
        mergeInto(label, state());
        if (opcode == Opcodes.GOTO) {
            live = false;
        }
    }

    @Override
    public void visitLdcInsn(Object value) {
        if (!step()) {
            return;
        }
        push(value instanceof Long || value instanceof Double ? 2 : 1, null);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
        if (!step()) {
            return;
        }
        pop(1);
        switchTo(dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
        if (!step()) {
            return;
        }
        pop(1);
        switchTo(dflt, labels);
    }

    private void switchTo(Label dflt, Label[] labels) {
        State now = state();
        mergeInto(dflt, now);
        for (Label l : labels) {
            mergeInto(l, now);
        }
        live = false;
    }

    @Override
    public void visitMultiANewArrayInsn(String desc, int numDimensions) {
        if (!step()) {
            return;
        }
        pop(numDimensions);
        push(1, null);
    }
}
