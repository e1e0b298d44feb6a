! nodenet base FRR template: edit for your fabric. Placeholders are filled by the agent (see packages/agent/src/frr).
frr defaults datacenter
! hostname is taken from the system
service integrated-vtysh-config
!
{{ vrfs }}
{{ prefix_lists }}
{{ route_maps }}
interface eth0
 ipv6 nd ra-interval 6
 no ipv6 nd suppress-ra
exit
!
router bgp {{ asn }}
 bgp router-id {{ router_id }}
 neighbor FABRIC peer-group
 neighbor FABRIC remote-as external
 neighbor eth0 interface peer-group FABRIC
 {{ bgp_default }}
 !
 address-family ipv4 unicast
  redistribute connected
  {{ bgp_default_ipv4 }}
 exit-address-family
 !
 address-family ipv6 unicast
  neighbor FABRIC activate
  redistribute connected
  {{ bgp_default_ipv6 }}
 exit-address-family
 !
 address-family l2vpn evpn
  neighbor FABRIC activate
  advertise-all-vni
 exit-address-family
exit
!
{{ bgp_vrfs }}
line vty
!
