package dev.baton.sale;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the service's own exceptions into RFC 9457 problem responses. It handles nothing else: the Baton starter
 * answers a rate-limit refusal (429 with its headers), an item whose lock was not free within
 * {@code baton.lock.wait-time} and Redis unavailable (503 with {@code Retry-After}); Spring Boot everything unexpected.
 */
@RestControllerAdvice(assignableTypes = {ItemController.class, AdminController.class})
public class SaleExceptionHandler {

    /** Creates the handler. */
    public SaleExceptionHandler() {
    }

    /**
     * @param e the exception
     * @return 409 Conflict
     */
    @ExceptionHandler
    public ProblemDetail soldOut(SoldOutException e) {
        return problem(HttpStatus.CONFLICT, "Sold out", e);
    }

    /**
     * @param e the exception
     * @return 404 Not Found
     */
    @ExceptionHandler
    public ProblemDetail unknownItem(UnknownItemException e) {
        return problem(HttpStatus.NOT_FOUND, "No such item", e);
    }

    /**
     * @param e the exception
     * @return 503 Service Unavailable: the lock was lost mid-way; a retry takes it anew
     */
    @ExceptionHandler
    public ProblemDetail staleToken(StaleFencingTokenException e) {
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "Lock lost, nothing written", e);
    }

    /**
     * @param e the exception; only this service's validation throws it here
     * @return 400 Bad Request
     */
    @ExceptionHandler
    public ProblemDetail invalidArgument(IllegalArgumentException e) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", e);
    }

    private static ProblemDetail problem(HttpStatus status, String title, RuntimeException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, e.getMessage());
        problem.setTitle(title);
        return problem;
    }
}
