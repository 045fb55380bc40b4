package dev.baton.spring.web;

import org.springframework.core.Ordered;
import org.springframework.http.codec.ServerCodecConfigurer;
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

    private final WebFluxProblemWriter writer;

    /**
     * @param codecs the application's codecs, which write the body
     */
    public RateLimitExceededWebFluxHandler(ServerCodecConfigurer codecs) {
        this.writer = new WebFluxProblemWriter(codecs);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        RateLimitResponse answer = RateLimitResponse.of(ex).orElse(null);
        if (answer == null || exchange.getResponse().isCommitted()) {
            return Mono.error(ex);
        }
        return writer.answer(exchange, answer.headers(), answer.body());
    }
}
