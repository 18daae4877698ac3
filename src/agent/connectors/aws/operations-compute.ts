import type { TProperties } from "@sinclair/typebox";
import { A, sdkRead } from "./sdk-operation.ts";

// SDK modules load on first use: a command that never touches a service never pays for it.
const sdk_ec2 = () => import("@aws-sdk/client-ec2");
const sdk_ecr = () => import("@aws-sdk/client-ecr");
const sdk_ecs = () => import("@aws-sdk/client-ecs");
const sdk_eks = () => import("@aws-sdk/client-eks");
const sdk_lambda = () => import("@aws-sdk/client-lambda");

// Statement Compute.

const paged = { Filters: A.filters, MaxResults: A.optInt, NextToken: A.optStr };

/** EC2 Describe* calls share one shape: optional ids, filters and (for most) paging. */
function ec2Describe(what: string, command: keyof typeof import("@aws-sdk/client-ec2") & string, extra: TProperties, paging = true) {
  const name = `aws.ec2.describe${what}`;
  return sdkRead({
    name,
    action: `ec2:Describe${what}`,
    summary: `EC2 ${what.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}`,
    sdk: sdk_ec2,
    client: "EC2Client",
    command,
    args: paging ? { ...paged, ...extra } : { Filters: A.filters, ...extra },
    example: {},
  });
}

export const computeOperations = [
  ec2Describe("Instances", "DescribeInstancesCommand", { InstanceIds: A.optStrs }),
  ec2Describe("Addresses", "DescribeAddressesCommand", { AllocationIds: A.optStrs, PublicIps: A.optStrs }, false),
  ec2Describe("NetworkInterfaces", "DescribeNetworkInterfacesCommand", { NetworkInterfaceIds: A.optStrs }),
  ec2Describe("SecurityGroups", "DescribeSecurityGroupsCommand", { GroupIds: A.optStrs }),
  ec2Describe("Subnets", "DescribeSubnetsCommand", { SubnetIds: A.optStrs }),
  ec2Describe("Vpcs", "DescribeVpcsCommand", { VpcIds: A.optStrs }),
  ec2Describe("VpcEndpoints", "DescribeVpcEndpointsCommand", { VpcEndpointIds: A.optStrs }),
  ec2Describe("VpcPeeringConnections", "DescribeVpcPeeringConnectionsCommand", { VpcPeeringConnectionIds: A.optStrs }),
  ec2Describe("RouteTables", "DescribeRouteTablesCommand", { RouteTableIds: A.optStrs }),
  ec2Describe("InternetGateways", "DescribeInternetGatewaysCommand", { InternetGatewayIds: A.optStrs }),
  ec2Describe("NatGateways", "DescribeNatGatewaysCommand", { NatGatewayIds: A.optStrs }),
  ec2Describe("CustomerGateways", "DescribeCustomerGatewaysCommand", { CustomerGatewayIds: A.optStrs }, false),
  ec2Describe("VpnConnections", "DescribeVpnConnectionsCommand", { VpnConnectionIds: A.optStrs }, false),
  ec2Describe("VpnGateways", "DescribeVpnGatewaysCommand", { VpnGatewayIds: A.optStrs }, false),
  ec2Describe("TransitGateways", "DescribeTransitGatewaysCommand", { TransitGatewayIds: A.optStrs }),
  ec2Describe("TransitGatewayAttachments", "DescribeTransitGatewayAttachmentsCommand", { TransitGatewayAttachmentIds: A.optStrs }),
  ec2Describe("ManagedPrefixLists", "DescribeManagedPrefixListsCommand", { PrefixListIds: A.optStrs }),

  sdkRead({ name: "aws.ecs.listClusters", action: "ecs:ListClusters", summary: "ECS clusters", sdk: sdk_ecs, client: "ECSClient", command: "ListClustersCommand", args: { nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.eks.listClusters", action: "eks:ListClusters", summary: "EKS clusters", sdk: sdk_eks, client: "EKSClient", command: "ListClustersCommand", args: { nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.eks.describeCluster", action: "eks:DescribeCluster", summary: "an EKS cluster: version, endpoint, status", sdk: sdk_eks, client: "EKSClient", command: "DescribeClusterCommand", args: { name: A.str }, example: { name: "prod" } }),
  sdkRead({ name: "aws.eks.listNodegroups", action: "eks:ListNodegroups", summary: "node groups of a cluster", sdk: sdk_eks, client: "EKSClient", command: "ListNodegroupsCommand", args: { clusterName: A.str, nextToken: A.optStr, maxResults: A.optInt }, example: { clusterName: "prod" } }),
  sdkRead({ name: "aws.eks.describeNodegroup", action: "eks:DescribeNodegroup", summary: "a node group", sdk: sdk_eks, client: "EKSClient", command: "DescribeNodegroupCommand", args: { clusterName: A.str, nodegroupName: A.str }, example: { clusterName: "prod", nodegroupName: "default" } }),
  sdkRead({ name: "aws.ecr.describeRepositories", action: "ecr:DescribeRepositories", summary: "ECR repositories", sdk: sdk_ecr, client: "ECRClient", command: "DescribeRepositoriesCommand", args: { repositoryNames: A.optStrs, nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.ecr.describeImages", action: "ecr:DescribeImages", summary: "images of a repository", sdk: sdk_ecr, client: "ECRClient", command: "DescribeImagesCommand", args: { repositoryName: A.str, nextToken: A.optStr, maxResults: A.optInt }, example: { repositoryName: "api" } }),
  sdkRead({ name: "aws.lambda.listFunctions", action: "lambda:ListFunctions", summary: "Lambda functions", sdk: sdk_lambda, client: "LambdaClient", command: "ListFunctionsCommand", args: { Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
  sdkRead({ name: "aws.lambda.getFunctionConfiguration", action: "lambda:GetFunctionConfiguration", summary: "configuration of a function", sdk: sdk_lambda, client: "LambdaClient", command: "GetFunctionConfigurationCommand", args: { FunctionName: A.str, Qualifier: A.optStr }, example: { FunctionName: "api-handler" } }),
  sdkRead({ name: "aws.lambda.listEventSourceMappings", action: "lambda:ListEventSourceMappings", summary: "event source mappings", sdk: sdk_lambda, client: "LambdaClient", command: "ListEventSourceMappingsCommand", args: { FunctionName: A.optStr, EventSourceArn: A.optStr, Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
];
