package dev.baton.spring.web;

import dev.baton.Baton;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Spring MVC: answers a lock not acquired in time or Redis unavailable that reached the dispatcher with
 * {@link UnavailableResponse} (503, {@code Retry-After}, {@code application/problem+json}). It runs at the lowest
 * precedence, after Spring's own resolvers, so an application's {@code @ExceptionHandler} for these exceptions (in the
 * controller or in any {@code @ControllerAdvice}) always wins. The body is written with the application's message
 * converters; without one for problem+json the response has the status and headers and no body.
 *
 * <p>These are expected outcomes, not bugs: a lock not acquired is logged at DEBUG, Redis unavailable as one WARN line
 * naming the request and Baton's message (the endpoint, never credentials), neither with a stack trace. Thread-safe.
 */
public final class UnavailableMvcResolver implements HandlerExceptionResolver, Ordered {
    private final MvcProblemWriter writer;
    private final ObjectProvider<Baton> baton;

    /**
     * @param adapter provides the application's message converters, looked up at the first answer
     * @param baton   provides the command timeout for {@code Retry-After}, looked up at each outage (1 s without one)
     */
    public UnavailableMvcResolver(ObjectProvider<RequestMappingHandlerAdapter> adapter, ObjectProvider<Baton> baton) {
        this.writer = new MvcProblemWriter(adapter);
        this.baton = Objects.requireNonNull(baton, "baton");
    }

    /** After every other resolver. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
                                         Exception ex) {
        UnavailableResponse answer = UnavailableResponse.of(ex, baton).orElse(null);
        if (answer == null || response.isCommitted()) {
            return null;
        }
        answer.log(request.getMethod() + " " + request.getRequestURI());
        return writer.answer(request, response, answer.headers(), answer.body());
    }
}
