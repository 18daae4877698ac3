import * as ec2 from "@aws-sdk/client-ec2";
import { DescribeImagesCommand, DescribeRepositoriesCommand, ECRClient } from "@aws-sdk/client-ecr";
import { ECSClient, ListClustersCommand as ListEcsClustersCommand } from "@aws-sdk/client-ecs";
import { DescribeClusterCommand, DescribeNodegroupCommand, EKSClient, ListClustersCommand as ListEksClustersCommand, ListNodegroupsCommand } from "@aws-sdk/client-eks";
import { GetFunctionConfigurationCommand, LambdaClient, ListEventSourceMappingsCommand, ListFunctionsCommand } from "@aws-sdk/client-lambda";
import type { TProperties } from "@sinclair/typebox";
import { A, sdkRead } from "./sdk-operation.ts";

// Statement Compute.

const paged = { Filters: A.filters, MaxResults: A.optInt, NextToken: A.optStr };

/** EC2 Describe* calls share one shape: optional ids, filters and (for most) paging. */
function ec2Describe(what: string, command: new (input: any) => unknown, extra: TProperties, paging = true) {
  const name = `aws.ec2.describe${what}`;
  return sdkRead({
    name,
    action: `ec2:Describe${what}`,
    summary: `EC2 ${what.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}`,
    client: ec2.EC2Client,
    command,
    args: paging ? { ...paged, ...extra } : { Filters: A.filters, ...extra },
    example: {},
  });
}

export const computeOperations = [
  ec2Describe("Instances", ec2.DescribeInstancesCommand, { InstanceIds: A.optStrs }),
  ec2Describe("Addresses", ec2.DescribeAddressesCommand, { AllocationIds: A.optStrs, PublicIps: A.optStrs }, false),
  ec2Describe("NetworkInterfaces", ec2.DescribeNetworkInterfacesCommand, { NetworkInterfaceIds: A.optStrs }),
  ec2Describe("SecurityGroups", ec2.DescribeSecurityGroupsCommand, { GroupIds: A.optStrs }),
  ec2Describe("Subnets", ec2.DescribeSubnetsCommand, { SubnetIds: A.optStrs }),
  ec2Describe("Vpcs", ec2.DescribeVpcsCommand, { VpcIds: A.optStrs }),
  ec2Describe("VpcEndpoints", ec2.DescribeVpcEndpointsCommand, { VpcEndpointIds: A.optStrs }),
  ec2Describe("VpcPeeringConnections", ec2.DescribeVpcPeeringConnectionsCommand, { VpcPeeringConnectionIds: A.optStrs }),
  ec2Describe("RouteTables", ec2.DescribeRouteTablesCommand, { RouteTableIds: A.optStrs }),
  ec2Describe("InternetGateways", ec2.DescribeInternetGatewaysCommand, { InternetGatewayIds: A.optStrs }),
  ec2Describe("NatGateways", ec2.DescribeNatGatewaysCommand, { NatGatewayIds: A.optStrs }),
  ec2Describe("CustomerGateways", ec2.DescribeCustomerGatewaysCommand, { CustomerGatewayIds: A.optStrs }, false),
  ec2Describe("VpnConnections", ec2.DescribeVpnConnectionsCommand, { VpnConnectionIds: A.optStrs }, false),
  ec2Describe("VpnGateways", ec2.DescribeVpnGatewaysCommand, { VpnGatewayIds: A.optStrs }, false),
  ec2Describe("TransitGateways", ec2.DescribeTransitGatewaysCommand, { TransitGatewayIds: A.optStrs }),
  ec2Describe("TransitGatewayAttachments", ec2.DescribeTransitGatewayAttachmentsCommand, { TransitGatewayAttachmentIds: A.optStrs }),
  ec2Describe("ManagedPrefixLists", ec2.DescribeManagedPrefixListsCommand, { PrefixListIds: A.optStrs }),

  sdkRead({ name: "aws.ecs.listClusters", action: "ecs:ListClusters", summary: "ECS clusters", client: ECSClient, command: ListEcsClustersCommand, args: { nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.eks.listClusters", action: "eks:ListClusters", summary: "EKS clusters", client: EKSClient, command: ListEksClustersCommand, args: { nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.eks.describeCluster", action: "eks:DescribeCluster", summary: "an EKS cluster: version, endpoint, status", client: EKSClient, command: DescribeClusterCommand, args: { name: A.str }, example: { name: "prod" } }),
  sdkRead({ name: "aws.eks.listNodegroups", action: "eks:ListNodegroups", summary: "node groups of a cluster", client: EKSClient, command: ListNodegroupsCommand, args: { clusterName: A.str, nextToken: A.optStr, maxResults: A.optInt }, example: { clusterName: "prod" } }),
  sdkRead({ name: "aws.eks.describeNodegroup", action: "eks:DescribeNodegroup", summary: "a node group", client: EKSClient, command: DescribeNodegroupCommand, args: { clusterName: A.str, nodegroupName: A.str }, example: { clusterName: "prod", nodegroupName: "default" } }),
  sdkRead({ name: "aws.ecr.describeRepositories", action: "ecr:DescribeRepositories", summary: "ECR repositories", client: ECRClient, command: DescribeRepositoriesCommand, args: { repositoryNames: A.optStrs, nextToken: A.optStr, maxResults: A.optInt }, example: {} }),
  sdkRead({ name: "aws.ecr.describeImages", action: "ecr:DescribeImages", summary: "images of a repository", client: ECRClient, command: DescribeImagesCommand, args: { repositoryName: A.str, nextToken: A.optStr, maxResults: A.optInt }, example: { repositoryName: "api" } }),
  sdkRead({ name: "aws.lambda.listFunctions", action: "lambda:ListFunctions", summary: "Lambda functions", client: LambdaClient, command: ListFunctionsCommand, args: { Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
  sdkRead({ name: "aws.lambda.getFunctionConfiguration", action: "lambda:GetFunctionConfiguration", summary: "configuration of a function", client: LambdaClient, command: GetFunctionConfigurationCommand, args: { FunctionName: A.str, Qualifier: A.optStr }, example: { FunctionName: "api-handler" } }),
  sdkRead({ name: "aws.lambda.listEventSourceMappings", action: "lambda:ListEventSourceMappings", summary: "event source mappings", client: LambdaClient, command: ListEventSourceMappingsCommand, args: { FunctionName: A.optStr, EventSourceArn: A.optStr, Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
];
