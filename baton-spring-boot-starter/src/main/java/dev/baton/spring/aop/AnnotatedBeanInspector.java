package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.spring.DistributedLock;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.LockKind;
import dev.baton.spring.RateLimited;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.election.ElectionCandidates;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.asm.Type;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;

/**
 * Checks every bean whose class carries {@link DistributedLock @DistributedLock}, {@link RateLimited @RateLimited} or
 * {@link LeaderOnly @LeaderOnly} before Spring proxies it, and fails the context's start with an
 * {@link AnnotationMisuseException} naming the class and the method when an annotation cannot work:
 * <ul>
 *   <li>a method a proxy cannot intercept: static, private or final; a final class when the bean needs a class-based
 *       (CGLIB) proxy; a method no interface declares when the bean is proxied through its interfaces;</li>
 *   <li>an attribute that does not parse (SpEL, durations, limits), checked by the interceptors, which keep the
 *       parsed form for the calls; a {@code @LeaderOnly} method returning a {@code Mono}, {@code Flux} or
 *       {@code CompletionStage};</li>
 *   <li>a <em>self-invocation</em>: code of the class (of a superclass, of an interface's default method, or of a
 *       class declared in one of them) calling one of its own annotated methods on {@code this}, which would bypass
 *       the proxy and run unprotected, whether directly, through a local variable, a lambda, a method reference or
 *       {@code Outer.this}; found in the bytecode ({@link SelfInvocationScanner}, which lists what it cannot
 *       see);</li>
 *   <li>an annotated bean while the context has no {@link Baton} (or no {@link RateLimiterRegistry});</li>
 *   <li>once every singleton exists (and for a bean created later, when it is), a {@code @LeaderOnly} method naming
 *       an election no {@code baton.elections.NAME} property declares ({@link ElectionCandidates#names()});</li>
 *   <li>once every singleton exists, when the context's Baton is a Redlock ({@code baton.redlock.nodes}): a
 *       {@code @RateLimited} method on the starter's registry, or a {@code @DistributedLock} method of a kind other
 *       than {@link LockKind#MUTEX}, since a quorum runs only the plain lock.</li>
 * </ul>
 * Each class is checked once, however many beans it has. Thread-safe.
 */
public final class AnnotatedBeanInspector implements BeanPostProcessor, SmartInitializingSingleton, Ordered {

    private final DistributedLockInterceptor locks;
    private final RateLimitedInterceptor rateLimits;
    private final LeaderOnlyInterceptor leaderOnly;
    private final PropertyResolver environment;
    private final ListableBeanFactory beanFactory;
    private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();
    /** The first @RateLimited method seen, and the first @DistributedLock method of a kind a quorum cannot run. */
    private final AtomicReference<String> firstRateLimited = new AtomicReference<>();
    private final AtomicReference<String> firstNotMutex = new AtomicReference<>();
    /** The @LeaderOnly methods seen, until their elections can be checked; then checked as they come. */
    private final ConcurrentLinkedQueue<LeaderOnlySpec> leaderOnlyToCheck = new ConcurrentLinkedQueue<>();
    private volatile boolean singletonsReady;

    /**
     * @param locks       parses and keeps the {@code @DistributedLock} attributes
     * @param rateLimits  parses and keeps the {@code @RateLimited} attributes
     * @param environment tells whether proxies are class-based ({@code spring.aop.proxy-target-class}, true unless
     *                    set otherwise, as in Spring Boot)
     * @param beanFactory tells whether the context has a Baton and a registry
     */
    public AnnotatedBeanInspector(DistributedLockInterceptor locks, RateLimitedInterceptor rateLimits,
                                  PropertyResolver environment, BeanFactory beanFactory) {
        this(locks, rateLimits, null, environment, beanFactory);
    }

    /**
     * @param locks       parses and keeps the {@code @DistributedLock} attributes
     * @param rateLimits  parses and keeps the {@code @RateLimited} attributes
     * @param leaderOnly  parses and keeps the {@code @LeaderOnly} attributes; null to leave {@code @LeaderOnly}
     *                    unchecked (as the four-argument constructor does)
     * @param environment tells whether proxies are class-based ({@code spring.aop.proxy-target-class}, true unless
     *                    set otherwise, as in Spring Boot)
     * @param beanFactory tells whether the context has a Baton, a registry and the elections
     */
    public AnnotatedBeanInspector(DistributedLockInterceptor locks, RateLimitedInterceptor rateLimits,
                                  LeaderOnlyInterceptor leaderOnly, PropertyResolver environment,
                                  BeanFactory beanFactory) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.rateLimits = Objects.requireNonNull(rateLimits, "rateLimits");
        this.leaderOnly = leaderOnly;
        this.environment = Objects.requireNonNull(environment, "environment");
        this.beanFactory = beanFactory instanceof ListableBeanFactory l ? l : null;
    }

    /** Before the auto-proxy creator, which runs at the lowest precedence. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /**
     * Checks the bean's class the first time a bean of it is initialized.
     *
     * @throws AnnotationMisuseException if an annotation of the class cannot work
     */
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        Class<?> type = ClassUtils.getUserClass(AopProxyUtils.ultimateTargetClass(bean));
        if (checked.add(type)) {
            try {
                inspect(type);
            } catch (RuntimeException e) {
                checked.remove(type); // a context that retries reports it again
                throw e;
            }
        }
        return bean;
    }

    private void inspect(Class<?> type) {
        Map<Method, Annotation> lockMethods = annotated(type, DistributedLock.class);
        Map<Method, Annotation> limitedMethods = annotated(type, RateLimited.class);
        Map<Method, Annotation> leaderMethods = leaderOnly == null ? Map.of() : annotated(type, LeaderOnly.class);
        if (lockMethods.isEmpty() && limitedMethods.isEmpty() && leaderMethods.isEmpty()) {
            return;
        }
        if (!lockMethods.isEmpty()) {
            requireBean(Baton.class, type, lockMethods.keySet().iterator().next(), "@DistributedLock");
        }
        if (!limitedMethods.isEmpty()) {
            requireBean(RateLimiterRegistry.class, type, limitedMethods.keySet().iterator().next(), "@RateLimited");
        }
        if (!leaderMethods.isEmpty()) {
            requireBean(Baton.class, type, leaderMethods.keySet().iterator().next(), LeaderOnlySpec.ANNOTATION);
        }
        Map<String, String> byNameAndDescriptor = new LinkedHashMap<>();
        lockMethods.forEach((m, a) -> {
            checkInterceptable(type, m, "@DistributedLock");
            LockKind kind = locks.specs().of(m).kind();
            if (kind != LockKind.MUTEX) {
                firstNotMutex.compareAndSet(null, "@DistributedLock(kind = " + kind + ") on "
                        + MethodLabel.of(type, m));
            }
            byNameAndDescriptor.put(m.getName() + Type.getMethodDescriptor(m), "@DistributedLock");
        });
        limitedMethods.forEach((m, a) -> {
            checkInterceptable(type, m, "@RateLimited");
            rateLimits.specs().of(m);
            firstRateLimited.compareAndSet(null, "@RateLimited on " + MethodLabel.of(type, m));
            byNameAndDescriptor.merge(m.getName() + Type.getMethodDescriptor(m), "@RateLimited",
                    (x, y) -> x + " and " + y);
        });
        List<LeaderOnlySpec> leaderSpecs = new ArrayList<>();
        leaderMethods.forEach((m, a) -> {
            checkInterceptable(type, m, LeaderOnlySpec.ANNOTATION);
            leaderSpecs.add(leaderOnly.specs().of(m));
            byNameAndDescriptor.merge(m.getName() + Type.getMethodDescriptor(m), LeaderOnlySpec.ANNOTATION,
                    (x, y) -> x + " and " + y);
        });
        checkSelfInvocation(type, byNameAndDescriptor);
        if (singletonsReady) {
            leaderSpecs.forEach(this::checkElectionDeclared);
        } else {
            leaderOnlyToCheck.addAll(leaderSpecs);
        }
    }

    /**
     * Fails the start when a {@code @LeaderOnly} method names an election that is not declared. Asked only once the
     * singletons exist, so that no annotated bean forces the Baton (and the elections) to be created early.
     */
    private void checkElectionDeclared(LeaderOnlySpec spec) {
        ElectionCandidates elections = beanFactory == null ? null
                : beanFactory.getBeanProvider(ElectionCandidates.class).getIfUnique();
        Set<String> declared = elections == null ? Set.of() : elections.names();
        if (!declared.contains(spec.election())) {
            throw new AnnotationMisuseException(LeaderOnlySpec.ANNOTATION + "(\"" + spec.election() + "\") on "
                    + spec.label() + ": no election '" + spec.election() + "' is declared, so this method would "
                    + "never run; declare it with baton.elections." + spec.election() + ".enabled=true (or "
                    + "baton.elections[" + spec.election() + "].enabled=true for a name with dots or capitals)"
                    + (declared.isEmpty() ? "" : "; declared elections: " + declared));
        }
    }

    /**
     * Fails the start when a {@code @LeaderOnly} method names an election no property declares, or when the
     * context's Baton is a Redlock and an annotated method needs more than a quorum runs. Looked at only now, when the
     * Baton exists, so that no annotated bean forces it to be created early.
     *
     * @throws AnnotationMisuseException naming the first such method
     */
    @Override
    public void afterSingletonsInstantiated() {
        singletonsReady = true;
        for (LeaderOnlySpec spec; (spec = leaderOnlyToCheck.poll()) != null; ) {
            checkElectionDeclared(spec);
        }
        if (beanFactory == null || (firstNotMutex.get() == null && firstRateLimited.get() == null)) {
            return;
        }
        Baton baton = beanFactory.getBeanProvider(Baton.class).getIfUnique();
        if (baton == null || baton.config().redlockMasters().isEmpty()) {
            return;
        }
        String masters = baton.config().redlockMasters().size() + " Redlock masters";
        if (firstNotMutex.get() != null) {
            throw new AnnotationMisuseException(firstNotMutex.get() + ": the Baton runs on " + masters
                    + ", where only the plain lock (kind = MUTEX) can be held by a quorum; see docs/redlock.md");
        }
        RateLimiterRegistry registry = beanFactory.getBeanProvider(RateLimiterRegistry.class).getIfUnique();
        if (registry instanceof BoundedRateLimiterRegistry && firstRateLimited.get() != null) {
            throw new AnnotationMisuseException(firstRateLimited.get() + ": the Baton runs on " + masters
                    + ", and a rate limiter cannot run on a quorum (each master would count a different share); "
                    + "define a RateLimiterRegistry bean over a Baton on one Redis deployment, or see "
                    + "docs/redlock.md");
        }
    }

    private static <A extends Annotation> Map<Method, Annotation> annotated(Class<?> type, Class<A> annotation) {
        return new LinkedHashMap<>(MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<Annotation>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, annotation)));
    }

    private void requireBean(Class<?> needed, Class<?> type, Method method, String annotation) {
        if (beanFactory != null
                && BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, needed, true, false).length == 0) {
            throw new AnnotationMisuseException(annotation + " on " + MethodLabel.of(type, method) + " needs a "
                    + needed.getSimpleName() + " bean, and the context has none (is baton.enabled=false, or is "
                    + "spring.data.redis.* missing?)");
        }
    }

    private void checkInterceptable(Class<?> type, Method method, String annotation) {
        String where = annotation + " on " + MethodLabel.of(type, method);
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers)) {
            throw new AnnotationMisuseException(where + ": the method is static, and a proxy only intercepts calls on "
                    + "the bean; make it an instance method");
        }
        if (Modifier.isPrivate(modifiers)) {
            throw new AnnotationMisuseException(where + ": the method is private, and a proxy cannot intercept it; "
                    + "make it public");
        }
        if (Modifier.isFinal(modifiers)) {
            throw new AnnotationMisuseException(where + ": the method is final, and a class-based proxy cannot "
                    + "override it; remove final");
        }
        boolean classProxy = environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)
                || ClassUtils.getAllInterfacesForClass(type).length == 0;
        if (classProxy && Modifier.isFinal(type.getModifiers())) {
            throw new AnnotationMisuseException(where + ": the class " + type.getName() + " is final, and the "
                    + "class-based (CGLIB) proxy this bean needs cannot subclass it; remove final");
        }
        if (!classProxy && !declaredByInterface(type, method)) {
            throw new AnnotationMisuseException(where + ": beans are proxied through their interfaces "
                    + "(spring.aop.proxy-target-class=false) and no interface of " + type.getName() + " declares this "
                    + "method, so calls to it cannot be intercepted; declare it in an interface");
        }
    }

    private static boolean declaredByInterface(Class<?> type, Method method) {
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (ClassUtils.hasMethod(i, method.getName(), method.getParameterTypes())) {
                return true;
            }
        }
        return false;
    }

    private static void checkSelfInvocation(Class<?> type, Map<String, String> annotated) {
        Set<String> keys = new LinkedHashSet<>(annotated.keySet());
        // The code that runs with the bean as this: its class's, its superclasses', and its interfaces' default
        // methods (a default method calling an annotated method bypasses the proxy just the same).
        List<Class<?>> declaring = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            declaring.add(c);
        }
        declaring.addAll(ClassUtils.getAllInterfacesForClassAsSet(type));
        for (Class<?> c : declaring) {
            List<SelfInvocationScanner.SelfCall> calls = SelfInvocationScanner.scan(c, keys);
            if (!calls.isEmpty()) {
                SelfInvocationScanner.SelfCall call = calls.get(0);
                String annotation = annotated.entrySet().stream()
                        .filter(e -> e.getKey().startsWith(call.callee() + "(")).map(Map.Entry::getValue)
                        .findFirst().orElse("an annotated");
                throw new AnnotationMisuseException(c.getName() + ": " + call.caller() + " calls " + annotation
                        + " method " + call.callee() + " on this, which bypasses Spring's proxy, so the annotation "
                        + "would not apply to that call (self-invocation). Call it through the proxy instead: inject "
                        + "the bean into itself (@Autowired @Lazy " + type.getSimpleName() + " self; then self."
                        + call.callee() + "(...)), or move " + call.callee() + " to another bean."
                        + (calls.size() > 1 ? " (" + (calls.size() - 1) + " more such call"
                        + (calls.size() > 2 ? "s" : "") + " in this class.)" : ""));
            }
        }
    }
}
