package dev.baton.spring.aop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Finds, in a class's bytecode, the calls that one of its methods makes to an annotated method <em>on
 * {@code this}</em>.
 * Such a call does not go through Spring's proxy, so the annotation would silently not apply. A call on another
 * reference of the same type (an injected proxy of the bean itself, the usual fix) is not reported: the scanner follows
 * which operand-stack slots hold {@code this} (local 0 of an instance method) through each method's instructions.
 *
 * <p>The tracking follows branches: at a branch target a slot holds {@code this} only if it does on every path that
 * reaches it (the jumps seen so far and the fall-through), so {@code this.pay(ok ? a : b)} is found, and a receiver
 * chosen by a conditional expression ({@code (ok ? this : other).pay()}) is not reported. Where the simulation loses
 * track (a target reached only by a backward jump, an exception handler), the slots count as not {@code this}. Calls
 * inside lambdas that capture {@code this} are found (in their synthetic methods) and reported against the method
 * that declares the lambda. Stateless; thread-safe.
 */
final class SelfInvocationScanner {

    /** One call of an annotated method on {@code this}. */
    record SelfCall(String caller, String callee) {
    }

    private SelfInvocationScanner() {
    }

    /**
     * @param type      the class to scan (its own bytecode, not its superclasses')
     * @param annotated names and descriptors of the annotated methods, as {@code name + descriptor}
     * @return the calls found, in bytecode order; empty if the class's bytecode cannot be read (a generated class)
     */
    static List<SelfCall> scan(Class<?> type, Set<String> annotated) {
        String resource = type.getName().replace('.', '/') + ".class";
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        List<SelfCall> found = new ArrayList<>();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                return found;
            }
            String owner = Type.getInternalName(type);
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    if ((access & Opcodes.ACC_STATIC) != 0) {
                        return null; // no this
                    }
                    return new ThisTracker(owner, name, descriptor, annotated, found);
                }
            }, ClassReader.EXPAND_FRAMES);
        } catch (IOException e) {
            return found;
        }
        return found;
    }

    /** The readable name of a caller: a lambda's synthetic method is reported as the method that declares it. */
    static String callerName(String method) {
        if (method.startsWith("lambda$")) {
            String[] parts = method.split("\\$");
            return parts.length > 1 ? "a lambda in " + parts[1] : method;
        }
        return method.equals("<init>") ? "the constructor" : method;
    }

    /**
     * Simulates one method's operand stack, one boolean per slot (long and double take two): whether the slot holds
     * {@code this}. Only the instructions' effect on the stack's depth and on {@code this} matters.
     */
    private static final class ThisTracker extends MethodVisitor {
        private final String owner;
        private final String caller;
        private final String callerDescriptor;
        /** The stacks with which jumps seen so far reach each label. */
        private final Map<Label, List<Boolean>> jumps = new HashMap<>();
        /** Whether the next instruction can be reached by falling through from the one before. */
        private boolean reachable = true;
        private final Set<String> annotated;
        private final List<SelfCall> found;
        private final List<Boolean> stack = new ArrayList<>();
        private boolean thisReassigned;
        private boolean lost;

        ThisTracker(String owner, String caller, String callerDescriptor, Set<String> annotated,
                    List<SelfCall> found) {
            super(Opcodes.ASM9);
            this.owner = owner;
            this.caller = caller;
            this.callerDescriptor = callerDescriptor;
            this.annotated = annotated;
            this.found = found;
        }

        private void push(int words, boolean isThis) {
            for (int i = 0; i < words; i++) {
                stack.add(isThis);
            }
        }

        /** Pops {@code words} slots; returns whether the deepest of them held this. */
        private boolean pop(int words) {
            boolean deepest = false;
            for (int i = 0; i < words; i++) {
                if (stack.isEmpty()) {
                    lost = true; // a shape this simulation does not follow: stop judging this method
                    return false;
                }
                deepest = stack.remove(stack.size() - 1);
            }
            return deepest;
        }

        private boolean peek(int fromTop) {
            int i = stack.size() - 1 - fromTop;
            if (i < 0) {
                lost = true;
                return false;
            }
            return stack.get(i);
        }

        /** Records the stack with which a jump reaches {@code target}. */
        private void jumpTo(Label target) {
            jumps.merge(target, new ArrayList<>(stack), ThisTracker::meet);
        }

        /** The slots that hold this on both paths; null when the depths differ (the shape is not understood). */
        private static List<Boolean> meet(List<Boolean> a, List<Boolean> b) {
            if (a == null || b == null || a.size() != b.size()) {
                return null;
            }
            List<Boolean> both = new ArrayList<>(a.size());
            for (int i = 0; i < a.size(); i++) {
                both.add(a.get(i) && b.get(i));
            }
            return both;
        }

        @Override
        public void visitLabel(Label label) {
            boolean jumpedTo = jumps.containsKey(label);
            List<Boolean> jumped = jumps.remove(label);
            List<Boolean> state;
            if (!jumpedTo) {
                state = reachable ? stack : null;
            } else {
                state = reachable ? meet(stack, jumped) : jumped;
            }
            if (state != stack) {
                stack.clear();
                if (state != null) {
                    stack.addAll(state);
                }
            }
            reachable = true;
        }

        @Override
        public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stackTypes) {
            int words = 0;
            for (int i = 0; i < numStack; i++) {
                Object t = stackTypes[i];
                words += t == Opcodes.LONG || t == Opcodes.DOUBLE ? 2 : 1;
            }
            if (words != stack.size()) { // reached in a way not followed (a backward jump, a handler): not this
                stack.clear();
                push(words, false);
            }
        }

        @Override
        public void visitInsn(int opcode) {
            switch (opcode) {
                case Opcodes.DUP -> push(1, peek(0));
                case Opcodes.DUP_X1 -> dupDown(1, 1);
                case Opcodes.DUP_X2 -> dupDown(1, 2);
                case Opcodes.DUP2 -> {
                    boolean b = peek(1);
                    boolean a = peek(0);
                    push(1, b);
                    push(1, a);
                }
                case Opcodes.DUP2_X1 -> dupDown(2, 1);
                case Opcodes.DUP2_X2 -> dupDown(2, 2);
                case Opcodes.SWAP -> {
                    boolean a = pop(1);
                    boolean b = pop(1);
                    push(1, a);
                    push(1, b);
                }
                case Opcodes.IRETURN, Opcodes.LRETURN, Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN,
                     Opcodes.RETURN, Opcodes.ATHROW -> {
                    stack.clear();
                    reachable = false;
                }
                default -> {
                    int[] effect = InstructionEffect.of(opcode);
                    pop(effect[0]);
                    push(effect[1], false);
                }
            }
        }

        /** DUP_X*: copies the top {@code words} slots below the {@code below} slots under them. */
        private void dupDown(int words, int below) {
            List<Boolean> top = new ArrayList<>(stack.subList(Math.max(0, stack.size() - words), stack.size()));
            int at = stack.size() - words - below;
            if (at < 0 || top.size() < words) {
                lost = true;
                return;
            }
            stack.addAll(at, top);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            if (opcode == Opcodes.NEWARRAY) {
                pop(1);
            }
            push(1, false);
        }

        @Override
        public void visitVarInsn(int opcode, int varIndex) {
            switch (opcode) {
                case Opcodes.ALOAD -> push(1, varIndex == 0 && !thisReassigned);
                case Opcodes.ILOAD, Opcodes.FLOAD -> push(1, false);
                case Opcodes.LLOAD, Opcodes.DLOAD -> push(2, false);
                case Opcodes.ASTORE -> {
                    pop(1);
                    thisReassigned |= varIndex == 0;
                }
                case Opcodes.ISTORE, Opcodes.FSTORE -> pop(1);
                case Opcodes.LSTORE, Opcodes.DSTORE -> pop(2);
                default -> {
                    // RET: no stack effect
                }
            }
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            if (opcode == Opcodes.NEW) {
                push(1, false);
            } else if (opcode == Opcodes.CHECKCAST) {
                push(1, pop(1)); // a cast of this is still this
            } else { // ANEWARRAY, INSTANCEOF
                pop(1);
                push(1, false);
            }
        }

        @Override
        public void visitFieldInsn(int opcode, String fieldOwner, String name, String descriptor) {
            int size = Type.getType(descriptor).getSize();
            switch (opcode) {
                case Opcodes.GETSTATIC -> push(size, false);
                case Opcodes.PUTSTATIC -> pop(size);
                case Opcodes.GETFIELD -> {
                    pop(1);
                    push(size, false);
                }
                default -> pop(size + 1); // PUTFIELD
            }
        }

        @Override
        public void visitMethodInsn(int opcode, String methodOwner, String name, String descriptor,
                                    boolean isInterface) {
            int argWords = (Type.getArgumentsAndReturnSizes(descriptor) >> 2) - 1;
            pop(argWords);
            boolean onThis = opcode != Opcodes.INVOKESTATIC && pop(1);
            if (onThis && !lost && opcode != Opcodes.INVOKESPECIAL && methodOwner.equals(owner)
                    && annotated.contains(name + descriptor)
                    && !(name.equals(caller) && descriptor.equals(callerDescriptor))) {
                found.add(new SelfCall(callerName(caller), name));
            }
            push(Type.getReturnType(descriptor).getSize(), false);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... args) {
            pop((Type.getArgumentsAndReturnSizes(descriptor) >> 2) - 1);
            push(Type.getReturnType(descriptor).getSize(), false);
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            switch (opcode) {
                case Opcodes.GOTO, Opcodes.JSR -> {
                    // no stack effect (JSR is absent from class files javac writes today)
                }
                case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT,
                     Opcodes.IF_ICMPLE, Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE -> pop(2);
                default -> pop(1);
            }
            jumpTo(label);
            if (opcode == Opcodes.GOTO) {
                reachable = false;
            }
        }

        @Override
        public void visitLdcInsn(Object value) {
            push(value instanceof Long || value instanceof Double ? 2 : 1, false);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            pop(1);
            switchTo(dflt, labels);
        }

        private void switchTo(Label dflt, Label[] labels) {
            jumpTo(dflt);
            for (Label l : labels) {
                jumpTo(l);
            }
            reachable = false;
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            pop(1);
            switchTo(dflt, labels);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            pop(numDimensions);
            push(1, false);
        }
    }
}
