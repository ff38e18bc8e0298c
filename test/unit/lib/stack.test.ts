/**
 * The stack suite: each subject's tests live in a module of their own (`*.cases.ts`) and run here,
 * in one test file, so that aws-cdk-lib loads once and each stage and block the subjects read is
 * synthesized once (app-fixture.ts). A test file per subject loaded aws-cdk-lib and synthesized the
 * shared stages again in each: most of the suite's CPU. One subject alone: `-t IAM`, for example.
 */
import './api-function.cases';
import './data-table.cases';
import './described-refusals.cases';
import './iam.cases';
import './ingest.cases';
import './monitoring.cases';
import './nag.cases';
import './rest-api.cases';
import './web-acl.cases';
import './webhooks.cases';
