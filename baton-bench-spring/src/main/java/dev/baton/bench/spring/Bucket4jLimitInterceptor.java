package dev.baton.bench.spring;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * What a team would write to put Bucket4j's Lettuce integration behind an annotation when Bucket4j's own starter
 * cannot use Lettuce for method annotations (its {@code @RateLimiting} aspect needs a synchronous backend, which on
 * Redis means Jedis): the key expression parsed once per method, evaluated per call over the arguments, the bucket
 * looked up by key in a {@link ProxyManager}, one token consumed, the method run or refused. Thread-safe.
 */
public class Bucket4jLimitInterceptor implements MethodInterceptor {
    private final ProxyManager<byte[]> buckets;
    private final BucketConfiguration configuration;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<Method, Expression> keys = new ConcurrentHashMap<>();

    /**
     * Creates the interceptor.
     *
     * @param buckets       where the buckets live
     * @param configuration the limit every bucket applies
     */
    public Bucket4jLimitInterceptor(ProxyManager<byte[]> buckets, BucketConfiguration configuration) {
        this.buckets = Objects.requireNonNull(buckets, "buckets");
        this.configuration = Objects.requireNonNull(configuration, "configuration");
    }

    /**
     * Consumes one token of the bucket the method's key names, then proceeds.
     *
     * @throws IllegalStateException when the bucket is empty (never in the benchmark, whose limit is far above what
     *                               one thread asks for)
     */
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Expression key = keys.computeIfAbsent(method, this::parseKey);
        String name = key.getValue(new MethodBasedEvaluationContext(invocation.getThis(), method,
                invocation.getArguments(), parameterNames), String.class);
        if (name == null || name.isBlank()) {
            throw new IllegalStateException("the key of " + method + " evaluated to nothing");
        }
        if (!buckets.builder().build(name.getBytes(StandardCharsets.UTF_8), () -> configuration).tryConsume(1)) {
            throw new IllegalStateException("rate limit of " + name + " exceeded");
        }
        return invocation.proceed();
    }

    private Expression parseKey(Method method) {
        Bucket4jLimited limited = method.getAnnotation(Bucket4jLimited.class);
        if (limited == null) {
            throw new IllegalStateException(method + " is not annotated with @Bucket4jLimited");
        }
        return parser.parseExpression(limited.key());
    }
}
