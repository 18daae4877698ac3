import type { Connector } from "../catalog.ts";
import { amplitudeConnector } from "./amplitude.ts";
import { argocdConnector } from "./argocd.ts";
import { awsConnector } from "./aws.ts";
import { azionConnector } from "./azion.ts";
import { checklyConnector } from "./checkly.ts";
import { cloudflareConnector } from "./cloudflare.ts";
import { datadogConnector } from "./datadog.ts";
import { eksConnector } from "./eks.ts";
import { gcpConnector } from "./gcp.ts";
import { githubConnector } from "./github.ts";
import { grafanaConnector } from "./grafana.ts";
import { jiraConnector } from "./jira.ts";
import { mongodbConnector } from "./mongodb.ts";
import { slackConnector } from "./slack.ts";
import { sonarqubeConnector } from "./sonarqube.ts";
import { vercelConnector } from "./vercel.ts";

// Every connector the Agent knows. A connector is one file that exports its Connector with its
// operations; adding a platform is adding one line here.
export const CONNECTORS: Connector<any>[] = [awsConnector, eksConnector, gcpConnector, datadogConnector, grafanaConnector, githubConnector, slackConnector, jiraConnector, argocdConnector, checklyConnector, vercelConnector, sonarqubeConnector, amplitudeConnector, cloudflareConnector, azionConnector, mongodbConnector];
