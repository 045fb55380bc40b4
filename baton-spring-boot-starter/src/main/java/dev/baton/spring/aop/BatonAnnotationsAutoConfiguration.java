package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.DistributedLock;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.RateLimited;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import dev.baton.spring.election.ElectionCandidates;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes {@link DistributedLock @DistributedLock}, {@link RateLimited @RateLimited} and {@link LeaderOnly @LeaderOnly}
 * work on every Spring bean: one advisor per annotation (matched on the method or what it overrides), the startup
 * checks of {@link AnnotatedBeanInspector}, and a bounded {@link RateLimiterRegistry} unless the application defines
 * one.
 *
 * <p>Order around a method: the leadership is checked first ({@value #LEADER_ONLY_ORDER}; no Redis call, and a
 * skipped call costs nothing else), then the rate limit is charged ({@value #RATE_LIMIT_ORDER}), then the lock is taken
 * ({@value #LOCK_ORDER}), all outside {@code @Transactional} (whose advisor has the lowest precedence by default), so
 * a transaction commits before its lock is released. Makes sure an auto-proxy creator exists (Spring Boot's
 * {@code AopAutoConfiguration} normally provides one) and that it proxies classes unless
 * {@code spring.aop.proxy-target-class=false}.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(Baton.class)
@EnableConfigurationProperties(BatonProperties.class)
@Import(BatonAnnotationsAutoConfiguration.ProxyCreatorRegistrar.class)
public class BatonAnnotationsAutoConfiguration {

    /** The order of the {@code @LeaderOnly} advisor: before the rate limit and the lock. */
    public static final int LEADER_ONLY_ORDER = Ordered.LOWEST_PRECEDENCE - 300;

    /** The order of the {@code @RateLimited} advisor: before the lock, so a refused call never waits for it. */
    public static final int RATE_LIMIT_ORDER = Ordered.LOWEST_PRECEDENCE - 200;

    /** The order of the {@code @DistributedLock} advisor: outside transactions and most other advice. */
    public static final int LOCK_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /** Creates the configuration; Spring does. */
    public BatonAnnotationsAutoConfiguration() {
    }

    /**
     * @param baton       the application's Baton, looked up at the first call
     * @param properties  the {@code baton.*} properties, looked up at the first call
     * @param beanFactory resolves {@code @beanName} in keys
     * @param environment resolves placeholders in durations
     * @return the interceptor of {@code @DistributedLock} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DistributedLockInterceptor batonDistributedLockInterceptor(ObjectProvider<Baton> baton,
            ObjectProvider<BatonProperties> properties, BeanFactory beanFactory, Environment environment) {
        return new DistributedLockInterceptor(baton, properties, beanFactory, environment);
    }

    /**
     * @param registry    the limiters, looked up at the first call
     * @param properties  the {@code baton.*} properties, looked up at the first call
     * @param beanFactory resolves {@code @beanName} in keys
     * @param environment resolves placeholders in periods and fail-open
     * @return the interceptor of {@code @RateLimited} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedInterceptor batonRateLimitedInterceptor(ObjectProvider<RateLimiterRegistry> registry,
            ObjectProvider<BatonProperties> properties, BeanFactory beanFactory, Environment environment) {
        return new RateLimitedInterceptor(registry, properties, beanFactory, environment);
    }

    /**
     * @param candidates  this instance's candidacies, looked up at the first call
     * @param environment resolves placeholders in election names
     * @return the interceptor of {@code @LeaderOnly} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyInterceptor batonLeaderOnlyInterceptor(ObjectProvider<ElectionCandidates> candidates,
                                                            Environment environment) {
        return new LeaderOnlyInterceptor(candidates, environment);
    }

    /**
     * @param interceptor the {@code @LeaderOnly} interceptor
     * @return the advisor of {@code @LeaderOnly} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor batonLeaderOnlyAdvisor(LeaderOnlyInterceptor interceptor) {
        return advisor(LeaderOnly.class, interceptor, LEADER_ONLY_ORDER);
    }

    /**
     * @param interceptor the {@code @DistributedLock} interceptor
     * @return the advisor of {@code @DistributedLock} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor batonDistributedLockAdvisor(DistributedLockInterceptor interceptor) {
        return advisor(DistributedLock.class, interceptor, LOCK_ORDER);
    }

    /**
     * @param interceptor the {@code @RateLimited} interceptor
     * @return the advisor of {@code @RateLimited} methods
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor batonRateLimitedAdvisor(RateLimitedInterceptor interceptor) {
        return advisor(RateLimited.class, interceptor, RATE_LIMIT_ORDER);
    }

    private static Advisor advisor(Class<? extends java.lang.annotation.Annotation> annotation,
                                   org.aopalliance.aop.Advice advice, int order) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, annotation, true), advice);
        advisor.setOrder(order);
        return advisor;
    }

    /**
     * @param locks       the {@code @DistributedLock} interceptor, which keeps the parsed attributes
     * @param rateLimits  the {@code @RateLimited} interceptor, which keeps the parsed attributes
     * @param leaderOnly  the {@code @LeaderOnly} interceptor, which keeps the parsed attributes
     * @param environment the proxy settings
     * @param beanFactory whether the beans the annotations need exist
     * @return the startup checks of annotated beans
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotatedBeanInspector batonAnnotatedBeanInspector(DistributedLockInterceptor locks,
            RateLimitedInterceptor rateLimits, LeaderOnlyInterceptor leaderOnly, Environment environment,
            BeanFactory beanFactory) {
        return new AnnotatedBeanInspector(locks, rateLimits, leaderOnly, environment, beanFactory);
    }

    /**
     * @param baton      creates the limiters
     * @param properties {@code baton.rate-limit.max-limiters}
     * @return the registry of {@code @RateLimited} limiters
     */
    @Bean
    @ConditionalOnBean(Baton.class)
    @ConditionalOnMissingBean(RateLimiterRegistry.class)
    public BoundedRateLimiterRegistry batonRateLimiterRegistry(Baton baton, BatonProperties properties) {
        return new BoundedRateLimiterRegistry(baton, properties.getRateLimit().getMaxLimiters());
    }

    /**
     * Registers Spring's infrastructure auto-proxy creator if the context has none (with Spring Boot's AOP
     * auto-configuration switched off, {@code spring.aop.auto=false}), class-based unless
     * {@code spring.aop.proxy-target-class=false}; an existing creator of higher rank is kept.
     */
    static final class ProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {
        private Environment environment;

        @Override
        public void setEnvironment(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            if (environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
                AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
            }
        }
    }
}
