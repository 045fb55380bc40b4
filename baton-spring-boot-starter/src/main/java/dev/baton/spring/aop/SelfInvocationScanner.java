package dev.baton.spring.aop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.FieldVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

/**
 * Finds, in a class's bytecode, the calls of one of its annotated methods <em>on its own {@code this}</em>. Such a call
 * does not go through Spring's proxy, so the annotation would silently not apply. A call on another reference of the
 * same type (an injected proxy of the bean itself, the usual fix; a parameter) is not reported.
 *
 * <p>{@code this} is followed in every form javac writes it in (each method is simulated by {@link ThisFlow}):
 * <ul>
 *   <li>directly ({@code pay()}, {@code this.pay()}), in every method of the class, its constructors included;</li>
 *   <li>through a local variable ({@code var me = this; me.pay()}), where every path to the call has the local hold
 *       {@code this};</li>
 *   <li>in a lambda that captures {@code this}, or a local that holds it (the lambda's body is a synthetic method of
 *       the class, reported as "a lambda in" the method that declares it);</li>
 *   <li>in a method reference bound to {@code this} ({@code this::pay}, {@code me::pay}: an {@code invokedynamic} whose
 *       target is the annotated method, with {@code this} as the bound receiver);</li>
 *   <li>in the classes declared in the class: inner, local and anonymous classes reach the bean through their
 *       synthetic {@code this$0} field ({@code Orders.this.pay()}), and local and anonymous classes also through the
 *       fields that hold the locals they capture ({@code val$me}), followed from the code that creates them;</li>
 *   <li>in a {@code final} field of a class of the nest that every constructor sets to {@code this}.</li>
 * </ul>
 * What is passed on is not followed: an argument of a method, or of the constructor of a class that is neither local
 * nor anonymous (its callers may be outside the nest), a field that is not final (anything, Spring's injection among
 * it, may set it), a collection, an array, a static field, a reflective call. The values passed to the nest's own
 * synthetic methods and anonymous or local constructors, and stored into its final fields, are found by rounds over the
 * whole nest until nothing more is learned. Stateless; thread-safe.
 */
final class SelfInvocationScanner {

    /** One call of an annotated method on {@code this}. */
    record SelfCall(String caller, String callee) {
    }

    /** Rounds over the nest before giving up learning more: far more than nested lambdas and classes need. */
    private static final int MAX_ROUNDS = 32;

    private SelfInvocationScanner() {
    }

    /**
     * @param type      the class to scan (its own bytecode and its nested classes', not its superclasses')
     * @param annotated names and descriptors of the annotated methods, as {@code name + descriptor}
     * @return the calls found, the class's own first; empty if the class's bytecode cannot be read (a generated class)
     */
    static List<SelfCall> scan(Class<?> type, Set<String> annotated) {
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
        Map<String, Declared> classes = readNest(Type.getInternalName(type), loader);
        if (classes.isEmpty()) {
            return List.of();
        }
        Set<String> hierarchy = new HashSet<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            hierarchy.add(Type.getInternalName(c));
        }
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            hierarchy.add(Type.getInternalName(i));
        }
        Round previous = new Round(Type.getInternalName(type), hierarchy, annotated, classes, Map.of(), Map.of());
        for (int round = 0; ; round++) {
            Round next = new Round(previous.bean, hierarchy, annotated, classes, previous.calledWith,
                    previous.storedValues);
            for (Declared d : classes.values()) {
                d.methods.forEach(m -> m.apply(next).analyze());
            }
            boolean settled = next.calledWith.equals(previous.calledWith)
                    && next.storedValues.equals(previous.storedValues);
            if (settled || round == MAX_ROUNDS) {
                return next.found;
            }
            previous = next;
        }
    }

    /** The readable name of a caller: a lambda's synthetic method is reported as the method that declares it. */
    static String callerName(String method) {
        if (method.startsWith("lambda$")) {
            String[] parts = method.split("\\$");
            return parts.length > 1 ? "a lambda in " + callerName(parts[1]) : method;
        }
        return switch (method) {
            case "<init>", "new" -> "the constructor";
            case "<clinit>", "static" -> "the static initializer";
            default -> method;
        };
    }

    // ---- the nest: the class and the classes declared in it, at any depth

    /** A class of the nest: what the simulation needs from its declarations, and its methods' recorded code. */
    private static final class Declared {
        /** How messages name the class, empty for the bean's own; e.g. " in the anonymous class Orders$1 (in pay)". */
        String label = "";
        /** The class it is declared in (null for the bean's), and whether only its enclosing code can create it. */
        String enclosing;
        boolean localOrAnonymous;
        final Map<String, String> outerInstanceFields = new HashMap<>();
        final Set<String> finalFields = new HashSet<>();
        final Set<String> privateSynthetic = new HashSet<>();
        final List<Function<ThisFlow.Nest, ThisFlow>> methods = new ArrayList<>();
        /** In the order javac lists them, so that the first call reported is the same from one start to the next. */
        final Set<String> declaredInside = new LinkedHashSet<>();
    }

    /**
     * Reads the class and, through the InnerClasses attribute of each class read, the classes declared in it at any
     * depth (member, local and anonymous, which javac lists there). Empty if the class's bytecode cannot be read.
     */
    private static Map<String, Declared> readNest(String bean, ClassLoader loader) {
        Map<String, Declared> classes = new LinkedHashMap<>();
        Deque<String> queue = new ArrayDeque<>();
        queue.add(bean);
        Set<String> seen = new HashSet<>(queue);
        while (!queue.isEmpty()) {
            String name = queue.poll();
            Declared d = read(name, loader);
            if (d == null) {
                if (name.equals(bean)) {
                    return Map.of();
                }
                continue;
            }
            boolean member = name.equals(bean) || classes.containsKey(d.enclosing);
            if (!member) {
                continue; // a class the bean's code names but that is declared elsewhere
            }
            if (name.equals(bean)) {
                d.label = "";
                d.enclosing = null;
                d.localOrAnonymous = false;
            }
            classes.put(name, d);
            for (String inner : d.declaredInside) {
                if (seen.add(inner)) {
                    queue.add(inner);
                }
            }
        }
        return classes;
    }

    private static Declared read(String name, ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(name + ".class")) {
            if (in == null) {
                return null;
            }
            Declared d = new Declared();
            String[] enclosingMethod = new String[1];
            String simple = name.substring(name.lastIndexOf('/') + 1);
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public void visitOuterClass(String owner, String method, String descriptor) {
                    d.enclosing = owner; // a local or anonymous class: the class (and method) it is declared in
                    enclosingMethod[0] = method;
                    d.localOrAnonymous = true;
                }

                @Override
                public void visitInnerClass(String inner, String outerName, String innerName, int access) {
                    if (inner.equals(name)) {
                        if (outerName != null) {
                            d.enclosing = outerName;
                            d.label = " in the inner class " + simple;
                        } else {
                            d.label = (innerName == null ? " in the anonymous class " : " in the local class ")
                                    + simple;
                        }
                    } else if (inner.startsWith(name + "$")) { // the binary names of the classes declared in it
                        d.declaredInside.add(inner); // kept only if it turns out to be declared in this class
                    }
                }

                @Override
                public FieldVisitor visitField(int access, String field, String descriptor, String signature,
                                               Object value) {
                    boolean synthetic = (access & Opcodes.ACC_SYNTHETIC) != 0;
                    boolean instanceFinal = (access & (Opcodes.ACC_FINAL | Opcodes.ACC_STATIC)) == Opcodes.ACC_FINAL;
                    Type t = Type.getType(descriptor);
                    if (synthetic && field.startsWith("this$") && t.getSort() == Type.OBJECT) {
                        d.outerInstanceFields.put(field, t.getInternalName()); // Orders.this
                    } else if (instanceFinal && t.getSort() == Type.OBJECT) {
                        d.finalFields.add(field);
                    }
                    return null;
                }

                @Override
                public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                                                 String[] exceptions) {
                    if ((access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_PRIVATE))
                            == (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_PRIVATE)) {
                        d.privateSynthetic.add(method + descriptor); // a lambda's body
                    }
                    ThisFlow.Code code = new ThisFlow.Code(); // read once, replayed by every round
                    d.methods.add(nest -> new ThisFlow(nest, code, name, access, method, descriptor,
                            callerName(method) + d.label));
                    return code.recorder();
                }
            }, ClassReader.EXPAND_FRAMES);
            if (d.localOrAnonymous && enclosingMethod[0] != null) {
                d.label += " (in " + callerName(enclosingMethod[0]) + ")";
            }
            return d;
        } catch (IOException e) {
            return null;
        }
    }

    /** One round over the nest: what the previous round learned, and what this one collects. */
    private static final class Round implements ThisFlow.Nest {
        final String bean;
        final Set<String> hierarchy;
        final Set<String> annotated;
        final Map<String, Declared> classes;
        final Map<String, List<String>> lastCalledWith;
        final Map<String, Optional<String>> lastStored;
        final Map<String, List<String>> calledWith = new HashMap<>();
        final Map<String, Optional<String>> storedValues = new HashMap<>();
        final List<SelfCall> found = new ArrayList<>();

        Round(String bean, Set<String> hierarchy, Set<String> annotated, Map<String, Declared> classes,
              Map<String, List<String>> lastCalledWith, Map<String, Optional<String>> lastStored) {
            this.bean = bean;
            this.hierarchy = hierarchy;
            this.annotated = annotated;
            this.classes = classes;
            this.lastCalledWith = lastCalledWith;
            this.lastStored = lastStored;
        }

        @Override
        public String bean() {
            return bean;
        }

        @Override
        public boolean inBeanHierarchy(String owner) {
            return hierarchy.contains(owner);
        }

        @Override
        public Set<String> annotated() {
            return annotated;
        }

        @Override
        public String outerInstanceField(String owner, String field) {
            Declared d = classes.get(owner);
            String outer = d == null ? null : d.outerInstanceFields.get(field);
            return outer != null && classes.containsKey(outer) ? outer : null;
        }

        @Override
        public boolean trackedField(String owner, String field) {
            Declared d = classes.get(owner);
            return d != null && d.finalFields.contains(field);
        }

        @Override
        public String fieldValue(String owner, String field) {
            return lastStored.getOrDefault(owner + "." + field, Optional.empty()).orElse(null);
        }

        @Override
        public boolean callableOnlyFromNest(String owner, String nameAndDescriptor) {
            Declared d = classes.get(owner);
            return d != null && (d.privateSynthetic.contains(nameAndDescriptor)
                    || d.localOrAnonymous && nameAndDescriptor.startsWith("<init>("));
        }

        @Override
        public List<String> entryValues(String owner, String nameAndDescriptor) {
            return lastCalledWith.get(owner + "." + nameAndDescriptor);
        }

        @Override
        public void called(String owner, String nameAndDescriptor, List<String> values) {
            calledWith.merge(owner + "." + nameAndDescriptor, values, Round::meet);
        }

        @Override
        public void stored(String owner, String field, String value) {
            storedValues.merge(owner + "." + field, Optional.ofNullable(value),
                    (a, b) -> a.equals(b) ? a : Optional.empty());
        }

        @Override
        public void found(SelfCall call) {
            found.add(call);
        }

        private static List<String> meet(List<String> a, List<String> b) {
            List<String> both = new ArrayList<>();
            for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
                String x = i < a.size() ? a.get(i) : null;
                both.add(x != null && i < b.size() && x.equals(b.get(i)) ? x : null);
            }
            return both;
        }
    }
}
