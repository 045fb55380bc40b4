package dev.baton.bench.spring;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import java.net.URI;
import java.time.Duration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import redis.clients.jedis.JedisPool;

/**
 * The Spring Boot application every benchmark fork starts: Baton's starter, ShedLock and Bucket4j's starter
 * auto-configured side by side on one Redis ({@code spring.data.redis.url}, set by {@link BenchApp}), each with the
 * guarded bean it intercepts. Boot's own Redis connection (Lettuce) carries ShedLock; Bucket4j's starter gets the
 * {@link JedisPool} it needs; the hand-made Bucket4j interceptor gets a Lettuce {@link RedisClient}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class BenchApplication {

    /**
     * The work counter every guarded call and direct call shares.
     *
     * @return the counter
     */
    @Bean
    public WorkCounter workCounter() {
        return new WorkCounter();
    }

    /**
     * The methods guarded by the starter's {@code @DistributedLock}.
     *
     * @param work the work
     * @return the bean, proxied by the starter
     */
    @Bean
    public BatonLockedCalls batonLockedCalls(WorkCounter work) {
        return new BatonLockedCalls(work);
    }

    /**
     * The method guarded by the starter's {@code @RateLimited}.
     *
     * @param work the work
     * @return the bean, proxied by the starter
     */
    @Bean
    public BatonLimitedCalls batonLimitedCalls(WorkCounter work) {
        return new BatonLimitedCalls(work);
    }

    /**
     * ShedLock's lock provider on Boot's Redis connection factory.
     *
     * @param redis Boot's auto-configured connection factory (Lettuce)
     * @return the provider
     */
    @Bean
    public LockProvider lockProvider(RedisConnectionFactory redis) {
        return new RedisLockProvider(redis, "bench");
    }

    /**
     * The method guarded by ShedLock's {@code @SchedulerLock}.
     *
     * @param work the work
     * @return the bean, proxied by ShedLock
     */
    @Bean
    public ShedLockedCalls shedLockedCalls(WorkCounter work) {
        return new ShedLockedCalls(work);
    }

    /**
     * The Jedis pool Bucket4j's starter builds its buckets on ({@code bucket4j.cache-to-use=redis-jedis}).
     *
     * @param url the Redis URL
     * @return the pool
     */
    @Bean(destroyMethod = "close")
    public JedisPool jedisPool(@Value("${spring.data.redis.url}") String url) {
        return new JedisPool(URI.create(url));
    }

    /**
     * The method guarded by Bucket4j's starter.
     *
     * @param work the work
     * @return the bean, proxied by Bucket4j's starter
     */
    @Bean
    public Bucket4jStarterCalls bucket4jStarterCalls(WorkCounter work) {
        return new Bucket4jStarterCalls(work);
    }

    /**
     * The Lettuce client of Bucket4j's Lettuce integration, separate from Baton's as it would be in an application.
     *
     * @param url the Redis URL
     * @return the client
     */
    @Bean(destroyMethod = "shutdown")
    public RedisClient bucket4jRedisClient(@Value("${spring.data.redis.url}") String url) {
        return RedisClient.create(url);
    }

    /**
     * Bucket4j's compare-and-swap proxy manager on Lettuce, with keys expiring once their bucket would be full again
     * (as Bucket4j's starter sets up its own).
     *
     * @param client the Lettuce client
     * @return the proxy manager
     */
    @Bean
    public ProxyManager<byte[]> bucket4jLettuceBuckets(RedisClient client) {
        return Bucket4jLettuce.casBasedBuilder(client)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                        Duration.ofSeconds(10)))
                .build();
    }

    /**
     * {@link Bucket4jLimitInterceptor} applied to every {@link Bucket4jLimited} method.
     *
     * @param buckets the Lettuce proxy manager
     * @return the advisor, picked up by Boot's auto-proxy creator
     */
    @Bean
    public Advisor bucket4jLimitAdvisor(ProxyManager<byte[]> buckets) {
        return new DefaultPointcutAdvisor(AnnotationMatchingPointcut.forMethodAnnotation(Bucket4jLimited.class),
                new Bucket4jLimitInterceptor(buckets, BenchLimits.bucket4j()));
    }

    /**
     * The method guarded by {@link Bucket4jLimitInterceptor}.
     *
     * @param work the work
     * @return the bean, proxied through {@link #bucket4jLimitAdvisor}
     */
    @Bean
    public Bucket4jInterceptedCalls bucket4jInterceptedCalls(WorkCounter work) {
        return new Bucket4jInterceptedCalls(work);
    }
}
