package dev.baton.sale;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/** The record of scheduled restocks across every instance. */
@RestController
@RequestMapping("/api/restocks")
@Tag(name = "Restocks", description = "Runs of the scheduled restock")
public class RestockController {

    private final RestockLog restocks;

    /** @param restocks where runs are recorded */
    public RestockController(RestockLog restocks) {
        this.restocks = restocks;
    }

    /** @return every restock run so far, oldest first, whichever instance ran it */
    @GetMapping
    @Operation(operationId = "listRestocks", summary = "Every restock run so far, oldest first")
    public List<RestockRecord> restocks() {
        return restocks.runs();
    }
}
