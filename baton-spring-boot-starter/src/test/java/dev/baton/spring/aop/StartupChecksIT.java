package dev.baton.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.spring.DistributedLock;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.Limit;
import dev.baton.spring.LockContext;
import dev.baton.spring.RateLimited;
import dev.baton.spring.WhenNotAcquired;
import dev.baton.test.RedisExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import reactor.core.publisher.Mono;

/**
 * Misuse of the annotations fails the application's start with an {@link AnnotationMisuseException} naming the class
 * and the method; correct use next to it starts.
 */
class StartupChecksIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(TestBatonConfiguration.class)
    static class App {
    }

    /** Starts an application with the bean and returns why it failed. */
    private static AnnotationMisuseException failure(Class<?> bean, String... properties) {
        Throwable thrown = null;
        try (ConfigurableApplicationContext started = TestApps.start(List.of(App.class, bean), redis.server(),
                properties)) {
            throw new AssertionError("the application started with " + bean.getSimpleName() + ": " + started);
        } catch (RuntimeException e) {
            thrown = e;
        }
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof AnnotationMisuseException misuse) {
                return misuse;
            }
        }
        throw new AssertionError("the start failed otherwise", thrown);
    }

    // ---- methods proxies cannot intercept

    public static class PrivateMethod {
        @DistributedLock(key = "'x'")
        private void run() {
        }
    }

    public static class FinalMethod {
        @DistributedLock(key = "'x'")
        public final void run() {
        }
    }

    public static class StaticMethod {
        @RateLimited(key = "'x'", limits = @Limit(permits = 1, period = "1s"))
        public static void run() {
        }
    }

    public static final class FinalClass {
        @DistributedLock(key = "'x'")
        public void run() {
        }
    }

    @Test
    void methodsProxiesCannotInterceptFailTheStart() {
        assertThat(failure(PrivateMethod.class)).hasMessageContaining("@DistributedLock on "
                + PrivateMethod.class.getName() + ".run()").hasMessageContaining("private");
        assertThat(failure(FinalMethod.class)).hasMessageContaining(FinalMethod.class.getName() + ".run()")
                .hasMessageContaining("final");
        assertThat(failure(StaticMethod.class)).hasMessageContaining("@RateLimited on "
                + StaticMethod.class.getName() + ".run()").hasMessageContaining("static");
        assertThat(failure(FinalClass.class)).hasMessageContaining(FinalClass.class.getName() + ".run()")
                .hasMessageContaining("is final").hasMessageContaining("CGLIB");
    }

    // ---- self-invocation

    public static class SelfInvoking {
        public String caller(String id) {
            return "via " + locked(id);
        }

        @DistributedLock(key = "#id")
        public String locked(String id) {
            return id;
        }
    }

    public static class SelfInvokingRateLimited {
        public void caller() {
            limited(1, 2L);
        }

        @RateLimited(key = "'k'", limits = @Limit(permits = 1, period = "1s"))
        public void limited(int a, long b) {
        }
    }

    public static class SelfInvokingInALambda {
        public Runnable task() {
            return () -> locked();
        }

        @DistributedLock(key = "'x'")
        public void locked() {
        }
    }

    public static class SelfInvokingInABranch {
        public String caller(boolean fast, String id) {
            return locked(fast ? id : id.trim());
        }

        @DistributedLock(key = "#id")
        public String locked(String id) {
            return id;
        }
    }

    public static class SelfInvokingThroughAMethodReference {
        public Supplier<String> task() {
            return this::locked;
        }

        @DistributedLock(key = "'x'")
        public String locked() {
            return "x";
        }
    }

    public static class SelfInvokingInAnAnonymousClass {
        public Runnable task() {
            return new Runnable() {
                @Override
                public void run() {
                    locked();
                }
            };
        }

        @DistributedLock(key = "'x'")
        public void locked() {
        }
    }

    public static class SelfInvokingThroughALocal {
        @SuppressWarnings("UnnecessaryLocalVariable")
        public void caller() {
            var me = this;
            me.locked();
        }

        @DistributedLock(key = "'x'")
        public void locked() {
        }
    }

    /** An interface whose default method calls another of its methods, which the bean implements with a lock. */
    public interface Refunds {
        void pay();

        default void refund() {
            pay();
        }
    }

    public static class SelfInvokingInADefaultMethod implements Refunds {
        @Override
        @DistributedLock(key = "'x'")
        public void pay() {
        }
    }

    /** The fix the message suggests: call through an injected proxy of the bean itself. */
    public static class SelfInjected {
        @Autowired
        @Lazy
        private SelfInjected self;

        public String caller() {
            return self.locked();
        }

        /** The proxy in the forms that this takes in the self-invocations above: each call goes through it. */
        public Supplier<String> throughAMethodReference() {
            return self::locked;
        }

        public Supplier<String> inAnAnonymousClass() {
            return new Supplier<>() {
                @Override
                public String get() {
                    return self.locked();
                }
            };
        }

        public String throughALocal() {
            var proxy = self;
            return proxy.locked();
        }

        public Supplier<String> inALambda() {
            return () -> self.locked();
        }

        @DistributedLock(key = "'self'")
        public String locked() {
            return LockContext.currentLease().orElseThrow().lockName();
        }

        /** Another instance of the class is not this: not a self-invocation. */
        public String other(SelfInjected another) {
            return another.locked();
        }
    }

    @Test
    void selfInvocationFailsTheStartNamingCallerAndCallee() {
        assertThat(failure(SelfInvoking.class)).hasMessageContaining(SelfInvoking.class.getName())
                .hasMessageContaining("caller calls @DistributedLock method locked on this")
                .hasMessageContaining("self-invocation").hasMessageContaining("inject the bean into itself")
                .hasMessageContaining("move locked to another bean");
        assertThat(failure(SelfInvokingRateLimited.class))
                .hasMessageContaining("caller calls @RateLimited method limited on this");
        assertThat(failure(SelfInvokingInALambda.class))
                .hasMessageContaining("a lambda in task calls @DistributedLock method locked on this");
        assertThat(failure(SelfInvokingInABranch.class))
                .hasMessageContaining("caller calls @DistributedLock method locked on this");
    }

    @Test
    void selfInvocationThroughAMethodReferenceAnAnonymousClassOrALocalFailsTheStart() {
        assertThat(failure(SelfInvokingThroughAMethodReference.class))
                .hasMessageContaining(SelfInvokingThroughAMethodReference.class.getName() + ": a method reference "
                        + "in task calls @DistributedLock method locked on this");
        assertThat(failure(SelfInvokingInAnAnonymousClass.class))
                .hasMessageContaining(SelfInvokingInAnAnonymousClass.class.getName() + ": run in the anonymous class "
                        + "StartupChecksIT$SelfInvokingInAnAnonymousClass$1 (in task) calls @DistributedLock method "
                        + "locked on this");
        assertThat(failure(SelfInvokingThroughALocal.class))
                .hasMessageContaining(SelfInvokingThroughALocal.class.getName() + ": caller calls @DistributedLock "
                        + "method locked on this");
    }

    @Test
    void selfInvocationInADefaultMethodOfAnInterfaceFailsTheStart() {
        assertThat(failure(SelfInvokingInADefaultMethod.class))
                .hasMessageContaining(Refunds.class.getName() + ": refund calls @DistributedLock method pay on this");
    }

    @Test
    void callsThroughAnInjectedProxyAreNotSelfInvocation() {
        try (ConfigurableApplicationContext context = TestApps.start(List.of(App.class, SelfInjected.class),
                redis.server())) {
            SelfInjected bean = context.getBean(SelfInjected.class);
            assertThat(bean.caller()).isEqualTo("self");
            assertThat(bean.throughAMethodReference().get()).isEqualTo("self");
            assertThat(bean.inAnAnonymousClass().get()).isEqualTo("self");
            assertThat(bean.throughALocal()).isEqualTo("self");
            assertThat(bean.inALambda().get()).isEqualTo("self");
        }
    }

    // ---- attributes that do not parse

    public static class BadSpel {
        @DistributedLock(key = "'order:' +")
        public void run() {
        }
    }

    public static class BadDuration {
        @DistributedLock(key = "'x'", waitTime = "5 parsecs")
        public void run() {
        }
    }

    public static class ZeroLease {
        @DistributedLock(key = "'x'", leaseTime = "0")
        public void run() {
        }
    }

    public static class UnresolvedPlaceholder {
        @DistributedLock(key = "'x'", minHoldTime = "${test.not-set}")
        public void run() {
        }
    }

    public static class ResolvedPlaceholder {
        @DistributedLock(key = "'x'", waitTime = "${test.wait}", minHoldTime = "${test.not-set:10ms}")
        public void run() {
        }
    }

    public static class SkipResultWithThrow {
        @DistributedLock(key = "'x'", skipResult = "'no'", whenNotAcquired = WhenNotAcquired.THROW)
        public String run() {
            return "yes";
        }
    }

    public static class ReactiveLock {
        @DistributedLock(key = "'x'")
        public Mono<String> run() {
            return Mono.just("x");
        }
    }

    public static class FutureLock {
        @DistributedLock(key = "'x'")
        public CompletableFuture<String> run() {
            return CompletableFuture.completedFuture("x");
        }
    }

    @Test
    void attributesThatDoNotParseFailTheStart() {
        assertThat(failure(BadSpel.class)).hasMessageContaining("@DistributedLock on " + BadSpel.class.getName()
                + ".run(): key = \"'order:' +\" is not a valid SpEL expression");
        assertThat(failure(BadDuration.class)).hasMessageContaining(BadDuration.class.getName() + ".run(): "
                + "waitTime = \"5 parsecs\" is not a duration");
        assertThat(failure(ZeroLease.class)).hasMessageContaining("leaseTime = \"0\" is shorter than 1ms");
        assertThat(failure(UnresolvedPlaceholder.class))
                .hasMessageContaining("minHoldTime = \"${test.not-set}\" has a placeholder that cannot be resolved");
        assertThat(failure(SkipResultWithThrow.class)).hasMessageContaining("skipResult = \"'no'\" only applies "
                + "with whenNotAcquired = SKIP");
        assertThat(failure(ReactiveLock.class)).hasMessageContaining(ReactiveLock.class.getName() + ".run()")
                .hasMessageContaining("returns a Mono").hasMessageContaining("acquireAsync");
        assertThat(failure(FutureLock.class)).hasMessageContaining("returns a CompletableFuture");
    }

    @Test
    void placeholdersResolveFromTheEnvironment() {
        try (ConfigurableApplicationContext context = TestApps.start(List.of(App.class, ResolvedPlaceholder.class),
                redis.server(), "test.wait=2s")) {
            context.getBean(ResolvedPlaceholder.class).run();
        }
        assertThat(failure(ResolvedPlaceholder.class, "test.wait=soon"))
                .hasMessageContaining("waitTime = \"${test.wait}\" is not a duration");
    }

    // ---- limits

    public static class NoLimits {
        @RateLimited(key = "'k'", limits = {})
        public void run() {
        }
    }

    public static class ZeroCost {
        @RateLimited(key = "'k'", limits = @Limit(permits = 5, period = "1s"), cost = 0)
        public void run() {
        }
    }

    public static class CostAboveBurst {
        @RateLimited(key = "'k'", limits = {@Limit(permits = 5, period = "1s"), @Limit(permits = 2, period = "1m")},
                cost = 3)
        public void run() {
        }
    }

    public static class BadPeriod {
        @RateLimited(key = "'k'", limits = @Limit(permits = 5, period = "often"))
        public void run() {
        }
    }

    public static class ZeroPermits {
        @RateLimited(key = "'k'", limits = @Limit(permits = 0, period = "1s"))
        public void run() {
        }
    }

    public static class BadFailOpen {
        @RateLimited(key = "'k'", limits = @Limit(permits = 1, period = "1s"), failOpen = "maybe")
        public void run() {
        }
    }

    @Test
    void badLimitsFailTheStart() {
        assertThat(failure(NoLimits.class)).hasMessageContaining("@RateLimited on " + NoLimits.class.getName()
                + ".run(): limits = \"{}\" is empty");
        assertThat(failure(ZeroCost.class)).hasMessageContaining("cost = \"0\" must be from 1 to the smallest "
                + "burst of the limits (5)");
        assertThat(failure(CostAboveBurst.class)).hasMessageContaining("cost = \"3\" must be from 1 to the smallest "
                + "burst of the limits (2)");
        assertThat(failure(BadPeriod.class)).hasMessageContaining("limits[0].period = \"often\" is not a duration");
        assertThat(failure(ZeroPermits.class)).hasMessageContaining("limits[0]").hasMessageContaining("permits");
        assertThat(failure(BadFailOpen.class)).hasMessageContaining("failOpen = \"maybe\" is neither true nor false");
    }

    // ---- @LeaderOnly

    public static class UndeclaredElection {
        @LeaderOnly("nope")
        public void run() {
        }
    }

    public static class BlankElection {
        @LeaderOnly(" ")
        public void run() {
        }
    }

    public static class PrivateLeaderOnly {
        @LeaderOnly("reports")
        private void run() {
        }
    }

    public static class ReactiveLeaderOnly {
        @LeaderOnly("reports")
        public Mono<String> run() {
            return Mono.just("x");
        }
    }

    public static class SelfInvokingLeaderOnly {
        public void caller() {
            lead();
        }

        @LeaderOnly("reports")
        public void lead() {
        }
    }

    @Test
    void leaderOnlyOnAnElectionNoPropertyDeclaresFailsTheStartNamingMethodAndElection() {
        assertThat(failure(UndeclaredElection.class)).hasMessageContaining("@LeaderOnly(\"nope\") on "
                + UndeclaredElection.class.getName() + ".run(): no election 'nope' is declared")
                .hasMessageContaining("baton.elections.nope.enabled=true");
        assertThat(failure(BlankElection.class)).hasMessageContaining("@LeaderOnly on " + BlankElection.class.getName()
                + ".run(): value = \" \" is blank");
    }

    @Test
    void leaderOnlyNamingAnotherElectionThanTheDeclaredOnesFailsTheStartListingThem() {
        assertThat(failure(UndeclaredElection.class, "baton.elections.reports.enabled=true"))
                .hasMessageContaining("no election 'nope' is declared")
                .hasMessageContaining("declared elections: [reports]");
    }

    @Test
    void leaderOnlyMisuseOfTheProxyFailsTheStartAsTheOtherAnnotationsDo() {
        assertThat(failure(PrivateLeaderOnly.class)).hasMessageContaining("@LeaderOnly on "
                + PrivateLeaderOnly.class.getName() + ".run()").hasMessageContaining("private");
        assertThat(failure(ReactiveLeaderOnly.class)).hasMessageContaining("@LeaderOnly on "
                + ReactiveLeaderOnly.class.getName() + ".run(): the method returns a Mono");
        assertThat(failure(SelfInvokingLeaderOnly.class))
                .hasMessageContaining("caller calls @LeaderOnly method lead on this");
    }
}
