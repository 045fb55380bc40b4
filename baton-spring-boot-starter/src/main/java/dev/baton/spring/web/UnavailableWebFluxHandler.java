package dev.baton.spring.web;

import dev.baton.Baton;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Spring WebFlux: answers a lock not acquired in time or Redis unavailable that no handler of the application took
 * with {@link UnavailableResponse} (503, {@code Retry-After}, {@code application/problem+json}). Exception handlers of
 * controllers and {@code @ControllerAdvice} run inside the dispatcher, before any {@link WebExceptionHandler}, so an
 * application's own handler always wins; this one runs just before Spring Boot's error handler (order
 * {@value #ORDER}), which would otherwise answer 500 and log the stack trace at ERROR. The body is written with the
 * application's codecs; without one for problem+json the response has the status and headers and no body. Logged as
 * {@link UnavailableMvcResolver} logs. Thread-safe.
 */
public final class UnavailableWebFluxHandler implements WebExceptionHandler, Ordered {

    /** Just before Spring Boot's {@code DefaultErrorWebExceptionHandler} (-1). */
    public static final int ORDER = -2;

    private final WebFluxProblemWriter writer;
    private final ObjectProvider<Baton> baton;

    /**
     * @param codecs the application's codecs, which write the body
     * @param baton  provides the command timeout for {@code Retry-After}, looked up at each outage (1 s without one)
     */
    public UnavailableWebFluxHandler(ServerCodecConfigurer codecs, ObjectProvider<Baton> baton) {
        this.writer = new WebFluxProblemWriter(codecs);
        this.baton = Objects.requireNonNull(baton, "baton");
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        UnavailableResponse answer = UnavailableResponse.of(ex, baton).orElse(null);
        if (answer == null || exchange.getResponse().isCommitted()) {
            return Mono.error(ex);
        }
        answer.log(exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath().value());
        return writer.answer(exchange, answer.headers(), answer.body());
    }
}
