package dev.baton.spring.web;

import java.net.URI;
import java.util.Map;
import java.util.Objects;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Spring WebFlux: answers a {@link dev.baton.RateLimitExceededException} that no handler of the application took with
 * {@link RateLimitResponse} (429, {@code Retry-After}, {@code RateLimit}, {@code RateLimit-Policy},
 * {@code application/problem+json}). Exception handlers of controllers and {@code @ControllerAdvice} run inside the
 * dispatcher, before any {@link WebExceptionHandler}, so an application's own handler always wins; this one runs just
 * before Spring Boot's error handler (order {@value #ORDER}). The body is written with the application's codecs;
 * without one for problem+json the response has the status and headers and no body. Thread-safe.
 */
public final class RateLimitExceededWebFluxHandler implements WebExceptionHandler, Ordered {

    /** Just before Spring Boot's {@code DefaultErrorWebExceptionHandler} (-1). */
    public static final int ORDER = -2;

    private static final ResolvableType PROBLEM = ResolvableType.forClass(ProblemDetail.class);

    private final ServerCodecConfigurer codecs;

    /**
     * @param codecs the application's codecs, which write the body
     */
    public RateLimitExceededWebFluxHandler(ServerCodecConfigurer codecs) {
        this.codecs = Objects.requireNonNull(codecs, "codecs");
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        RateLimitResponse answer = RateLimitResponse.of(ex).orElse(null);
        ServerHttpResponse response = exchange.getResponse();
        if (answer == null || response.isCommitted()) {
            return Mono.error(ex);
        }
        answer.body().setInstance(URI.create(exchange.getRequest().getPath().value()));
        response.setStatusCode(RateLimitResponse.STATUS);
        response.getHeaders().addAll(answer.headers());
        for (HttpMessageWriter<?> writer : codecs.getWriters()) {
            if (writer.canWrite(PROBLEM, MediaType.APPLICATION_PROBLEM_JSON)) {
                return ((HttpMessageWriter<Object>) writer).write(Mono.just(answer.body()), PROBLEM,
                        MediaType.APPLICATION_PROBLEM_JSON, response, Map.of());
            }
        }
        return response.setComplete();
    }
}
